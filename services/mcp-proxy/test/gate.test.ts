import { describe, expect, it } from 'vitest';
import { approvalQuestion } from '../src/approval/question.js';
import { decideGate, readConfidence, toolOverride } from '../src/policy/gate.js';
import { parsePolicy } from '../src/policy/load-policy.js';

const gated = parsePolicy({ mode: 'gated', critical: ['transfer_funds', 'delete_*'] });
/** A tool whose backend says it is not destructive: only then does confidence decide. */
const plain = { destructiveHint: false };

describe('decideGate in gated mode, rule by rule in order', () => {
  it('asks for a critical tool even when the backend calls it read-only and the agent is sure', () => {
    expect(decideGate(gated, 'transfer_funds', { readOnlyHint: true }, 1)).toMatchObject({
      needsHuman: true,
      reason: 'critical',
      critical: true,
    });
    expect(decideGate(gated, 'delete_file', { readOnlyHint: true }, 1).reason).toBe('critical');
    expect(decideGate(gated, 'undelete_file', { readOnlyHint: true }, 1).reason).toBe('read_only');
  });

  it('passes a read-only tool whatever the confidence', () => {
    for (const confidence of [undefined, 0, Number.NaN, 'high', true]) {
      expect(decideGate(gated, 'read_file', { readOnlyHint: true }, confidence)).toMatchObject({
        needsHuman: false,
        reason: 'read_only',
      });
    }
  });

  it('asks for a destructive tool even at full confidence; only destructiveHint: false lets confidence decide', () => {
    expect(decideGate(gated, 'write_file', { readOnlyHint: false, destructiveHint: true }, 1).reason).toBe(
      'destructive',
    );
    expect(decideGate(gated, 'write_file', { readOnlyHint: false }, 1).reason).toBe('destructive');
    expect(decideGate(gated, 'write_file', { readOnlyHint: false, destructiveHint: false }, 1)).toMatchObject(
      {
        needsHuman: false,
        reason: 'confident',
      },
    );
  });

  it('asks for a tool with no annotations at all, whatever confidence the agent claims (MCP default)', () => {
    for (const hints of [undefined, {}]) {
      expect(decideGate(gated, 'note', hints, 0.95)).toMatchObject({
        needsHuman: true,
        reason: 'destructive',
      });
    }
  });

  it('asks below the threshold and passes at exactly the threshold and above', () => {
    expect(decideGate(gated, 'send', plain, 0.6999)).toMatchObject({
      needsHuman: true,
      reason: 'confidence_low',
    });
    expect(decideGate(gated, 'send', plain, 0)).toMatchObject({ needsHuman: true, reason: 'confidence_low' });
    expect(decideGate(gated, 'send', plain, 0.7)).toMatchObject({ needsHuman: false, reason: 'confident' });
    expect(decideGate(gated, 'send', plain, 1)).toMatchObject({ needsHuman: false, reason: 'confident' });
  });

  it('asks (never rejects) when the confidence is missing or invalid', () => {
    expect(decideGate(gated, 'send', plain, undefined).reason).toBe('confidence_missing');
    expect(decideGate(gated, 'send', plain, null).reason).toBe('confidence_missing');
    for (const bad of [
      Number.NaN,
      true,
      false,
      '0.9',
      1.0001,
      -0.0001,
      Number.POSITIVE_INFINITY,
      {},
      [0.9],
    ]) {
      expect(decideGate(gated, 'send', plain, bad)).toMatchObject({
        needsHuman: true,
        reason: 'confidence_invalid',
      });
    }
  });

  it('reads confidence as a finite number in 0..1', () => {
    expect(readConfidence(0)).toBe(0);
    expect(readConfidence(1)).toBe(1);
    expect(readConfidence(0.5)).toBe(0.5);
    expect(readConfidence(Number.NaN)).toBe('confidence_invalid');
    expect(readConfidence(undefined)).toBe('confidence_missing');
  });
});

describe('modes and per-tool overrides', () => {
  it('asks for every call in mode all, even read-only ones; never in yolo, even critical ones', () => {
    const all = parsePolicy({ mode: 'all' });
    expect(decideGate(all, 'read', { readOnlyHint: true }, 1)).toMatchObject({
      needsHuman: true,
      reason: 'mode_all',
    });
    const yolo = parsePolicy({ mode: 'yolo', critical: ['pay'] });
    expect(decideGate(yolo, 'pay', { destructiveHint: true }, 0)).toMatchObject({
      needsHuman: false,
      reason: 'mode_yolo',
    });
  });

  it('applies the exact name before globs, then the first matching glob in file order', () => {
    const policy = parsePolicy({
      mode: 'gated',
      confidenceThreshold: 0.7,
      approvalTimeoutMs: 20_000,
      tools: {
        'fs_*': { confidenceThreshold: 0.9, approvalTimeoutMs: 5000 },
        'fs_*_dir': { mode: 'all' },
        fs_read: { mode: 'yolo' },
      },
    });
    expect(toolOverride(policy, 'fs_read')).toEqual({ mode: 'yolo' });
    expect(decideGate(policy, 'fs_read', undefined, undefined).reason).toBe('mode_yolo');
    expect(decideGate(policy, 'fs_make_dir', plain, 0.8)).toMatchObject({
      needsHuman: true,
      reason: 'confidence_low',
      threshold: 0.9,
      approvalTimeoutMs: 5000,
    });
    expect(decideGate(policy, 'fs_write', plain, 0.9)).toMatchObject({ needsHuman: false, threshold: 0.9 });
    expect(decideGate(policy, 'send', plain, 0.1)).toMatchObject({
      approvalTimeoutMs: 20_000,
      threshold: 0.7,
    });
  });

  it('takes the approval window from the tool, else the file; unset means the hold', () => {
    const policy = parsePolicy({
      approvalWindowMs: 86_400_000,
      tools: { 'pay_*': { approvalWindowMs: 600_000 }, quick: { approvalTimeoutMs: 5000 } },
    });
    expect(decideGate(policy, 'pay_bill', plain, 0.1).approvalWindowMs).toBe(600_000);
    expect(decideGate(policy, 'quick', plain, 0.1)).toMatchObject({
      approvalTimeoutMs: 5000,
      approvalWindowMs: 86_400_000,
    });
    expect(decideGate(parsePolicy({}), 'x', plain, 0.1)).not.toHaveProperty('approvalWindowMs');
  });

  it('lets an override take a tool off or put it on the critical list', () => {
    const policy = parsePolicy({
      critical: ['db_*'],
      tools: { db_select: { critical: false }, echo: { critical: true } },
    });
    expect(decideGate(policy, 'db_select', { readOnlyHint: true }, undefined).reason).toBe('read_only');
    expect(decideGate(policy, 'db_drop', { readOnlyHint: true }, 1).reason).toBe('critical');
    expect(decideGate(policy, 'echo', { readOnlyHint: true }, 1).reason).toBe('critical');
  });

  it('has gated, threshold 0.7 and no critical tools by default', () => {
    const policy = parsePolicy(undefined);
    expect(policy).toMatchObject({ mode: 'gated', confidenceThreshold: 0.7, critical: [], tools: {} });
  });
});

describe('a tool whose policy asks for a passkey', () => {
  const policy = parsePolicy({ mode: 'yolo', tools: { pay: { requirePasskey: true } } });
  it('always goes to a person, whatever the mode, and the inquiry asks for the passkey', () => {
    expect(decideGate(policy, 'pay', { readOnlyHint: true }, 1)).toMatchObject({
      needsHuman: true,
      reason: 'passkey',
      requirePasskey: true,
      // No standing approval ever covers it.
      standing: false,
    });
    expect(decideGate(policy, 'other', undefined, 1)).toMatchObject({ needsHuman: false });
    expect(
      approvalQuestion({
        userId: 'u',
        action: { server: 's', tool: 'pay', arguments: {} },
        canonicalArguments: '{}',
        reason: 'passkey',
        critical: false,
        holdMs: 1000,
        requirePasskey: true,
        standing: false,
        grantId: 'g',
      }),
    ).toMatchObject({ kind: 'approval', requirePasskey: true, standing: false });
  });
});

describe('approveInChat', () => {
  it('is off unless the tool says so, and on for a plain gated tool that does', () => {
    const policy = parsePolicy({ tools: { jot: { approveInChat: true } } });
    expect(decideGate(policy, 'jot', undefined, undefined)).toMatchObject({
      needsHuman: true,
      approveInChat: true,
    });
    expect(decideGate(policy, 'other', undefined, undefined).approveInChat).toBe(false);
  });

  it('is refused at load on a critical, quorum or passkey tool, naming the field', () => {
    const refused = (document: unknown) => () => parsePolicy(document);
    expect(refused({ tools: { pay: { approveInChat: true, requirePasskey: true } } })).toThrow(
      /tools\.pay\.approveInChat: a critical, quorum or passkey tool is never approved in the agent's chat/,
    );
    expect(refused({ tools: { rm: { approveInChat: true, critical: true } } })).toThrow(
      /tools\.rm\.approveInChat: /,
    );
    expect(
      refused({ tools: { wire: { approveInChat: true, approvers: { team: 't' }, quorum: 2 } } }),
    ).toThrow(/tools\.wire\.approveInChat: /);
    expect(refused({ critical: ['delete_*'], tools: { delete_file: { approveInChat: true } } })).toThrow(
      /tools\.delete_file\.approveInChat: /,
    );
    // Taken off the critical list, the tool may be approved in the chat.
    expect(
      parsePolicy({ critical: ['delete_*'], tools: { delete_tmp: { critical: false, approveInChat: true } } })
        .tools.delete_tmp?.approveInChat,
    ).toBe(true);
  });

  it('never applies to a call a critical glob catches at call time', () => {
    // The glob key is not itself on the list, so the file loads; the call is critical all the same.
    const policy = parsePolicy({ critical: ['rm_*'], tools: { '*': { approveInChat: true } } });
    expect(decideGate(policy, 'rm_all', undefined, 1)).toMatchObject({
      reason: 'critical',
      approveInChat: false,
    });
    expect(decideGate(policy, 'jot', undefined, undefined).approveInChat).toBe(true);
  });
});
