import { describe, expect, it } from 'vitest';
import {
  DeviceNameSchema,
  formatPairingCode,
  isPairingCode,
  PAIRING_ALPHABET,
  PairingClaimBodySchema,
  pairingCodeOf,
} from '../src/index.js';

describe('pairing codes', () => {
  it('the alphabet has no look-alikes', () => {
    for (const ch of '01OIL') expect(PAIRING_ALPHABET).not.toContain(ch);
    expect(new Set(PAIRING_ALPHABET).size).toBe(PAIRING_ALPHABET.length);
  });

  it('reads a code from a pairing link or as typed, and nothing else', () => {
    expect(pairingCodeOf('https://hitl.example/pair#R49ARHDK')).toBe('R49ARHDK');
    expect(pairingCodeOf(' r49a-rhdk ')).toBe('R49ARHDK');
    expect(pairingCodeOf('R49A RHDK')).toBe('R49ARHDK');
    expect(pairingCodeOf('R49ARHD')).toBeUndefined();
    expect(pairingCodeOf('R49ARHD0')).toBeUndefined();
    expect(pairingCodeOf('https://hitl.example/pair')).toBeUndefined();
    expect(isPairingCode('R49ARHDK')).toBe(true);
    expect(formatPairingCode('R49ARHDK')).toBe('R49A-RHDK');
  });
});

describe('device names', () => {
  it('are cleaned of control and invisible characters and bounded', () => {
    expect(DeviceNameSchema.parse('  My\u202e  phone\u200b\n ')).toBe('My phone');
    expect(DeviceNameSchema.parse('Desk\nterminal')).toBe('Desk terminal');
    expect(DeviceNameSchema.safeParse('\u0007\u200b').success).toBe(false);
    expect(DeviceNameSchema.safeParse('x'.repeat(100)).success).toBe(true);
    expect(DeviceNameSchema.safeParse('x'.repeat(101)).success).toBe(false);
  });

  it('a claim body names the bad field and refuses unknown ones', () => {
    const missing = PairingClaimBodySchema.safeParse({ code: 'R49ARHDK' });
    expect(missing.success ? [] : missing.error.issues.map((i) => i.path.join('.'))).toEqual(['deviceName']);
    expect(PairingClaimBodySchema.safeParse({ code: 'R49ARHDK', deviceName: 'P', token: 'x' }).success).toBe(
      false,
    );
  });
});
