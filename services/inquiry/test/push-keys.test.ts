import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Inquiry } from '@hitl/protocol';
import {
  ConfigError,
  loadConfig,
  PLACEHOLDER_VAPID_SUBJECT,
  SecretFileError,
  vapidKeysPath,
} from '@hitl/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { loadVapidKeys } from '../src/push/load-vapid.js';
import { endpointProblem } from '../src/push/push-endpoint.js';
import { cutToBytes, inquiryPush, inquiryTtl, pushTopic, resolvedPush } from '../src/push/push-payload.js';

const dirs: string[] = [];
const stateDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hitl-vapid-'));
  dirs.push(dir);
  return join(dir, 'state');
};
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const pair = () => ({ ...webpush.generateVAPIDKeys(), subject: 'mailto:ops@company.example.com' });
const env = (vars: Record<string, string>) => ({ HITL_SECRET: 'x'.repeat(40), ...vars });

describe('VAPID keys from the environment', () => {
  it('all three set: used as given', () => {
    const keys = pair();
    const config = loadConfig(
      env({
        HITL_VAPID_PUBLIC_KEY: keys.publicKey,
        HITL_VAPID_PRIVATE_KEY: keys.privateKey,
        HITL_VAPID_SUBJECT: keys.subject,
      }),
    );
    expect(config.push.vapid).toEqual(keys);
  });

  it('some but not all: a config error naming the missing ones', () => {
    const keys = pair();
    expect(() => loadConfig(env({ HITL_VAPID_PUBLIC_KEY: keys.publicKey }))).toThrow(
      /HITL_VAPID_PRIVATE_KEY="": required[\s\S]*HITL_VAPID_SUBJECT="": required/,
    );
  });

  it('a public key of another pair, a bad subject: named, and the private key never echoed', () => {
    const keys = pair();
    let message = '';
    try {
      loadConfig(
        env({
          HITL_VAPID_PUBLIC_KEY: pair().publicKey,
          HITL_VAPID_PRIVATE_KEY: keys.privateKey,
          HITL_VAPID_SUBJECT: 'ops@company.example.com',
        }),
      );
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain('HITL_VAPID_PUBLIC_KEY');
    expect(message).toContain('is not the public key of the private key given');
    expect(message).toContain(
      'HITL_VAPID_SUBJECT="ops@company.example.com": expected a mailto: or https: URL',
    );
    expect(message).not.toContain(keys.privateKey);
  });

  it('HITL_PUSH_ALLOW_HTTP_HOSTS is a comma list', () => {
    expect(
      loadConfig(env({ HITL_PUSH_ALLOW_HTTP_HOSTS: '127.0.0.1, Push.Local:8080' })).push.allowHttpHosts,
    ).toEqual(['127.0.0.1', 'push.local:8080']);
  });
});

describe('VAPID keys file in the state folder', () => {
  it('is made 0600 on the first start and read back on the next', async () => {
    const dir = await stateDir();
    const first = await loadVapidKeys(undefined, { stateDir: dir });
    expect(first).toMatchObject({ source: 'file', created: true });
    expect(first.keys.subject).toBe(PLACEHOLDER_VAPID_SUBJECT);
    if (process.platform !== 'win32') expect((await stat(vapidKeysPath(dir))).mode & 0o777).toBe(0o600);
    const second = await loadVapidKeys(undefined, { stateDir: dir });
    expect(second).toEqual({ keys: first.keys, source: 'file', created: false });
  });

  it('a subject edited in the file is used', async () => {
    const dir = await stateDir();
    const { keys } = await loadVapidKeys(undefined, { stateDir: dir });
    await writeFile(
      vapidKeysPath(dir),
      JSON.stringify({ ...keys, subject: 'https://hitl.company.example.com' }),
    );
    expect((await loadVapidKeys(undefined, { stateDir: dir })).keys.subject).toBe(
      'https://hitl.company.example.com',
    );
  });

  it.skipIf(process.platform === 'win32')(
    'a file others can read, a link, or a broken pair stops the start',
    async () => {
      const dir = await stateDir();
      await loadVapidKeys(undefined, { stateDir: dir });
      const path = vapidKeysPath(dir);
      await chmod(path, 0o644);
      await expect(loadVapidKeys(undefined, { stateDir: dir })).rejects.toThrow(
        /can be read by others.*chmod 600/,
      );
      await chmod(path, 0o600);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.replace(/"publicKey": "[^"]+"/, `"publicKey": "${pair().publicKey}"`));
      await expect(loadVapidKeys(undefined, { stateDir: dir })).rejects.toThrow(SecretFileError);
      await rm(path);
      await writeFile(join(dir, 'elsewhere.json'), text, { mode: 0o600 });
      await symlink(join(dir, 'elsewhere.json'), path);
      await expect(loadVapidKeys(undefined, { stateDir: dir })).rejects.toThrow(/symbolic link/);
    },
  );

  it('configured keys win over the file, which is then not made', async () => {
    const dir = await stateDir();
    const keys = pair();
    expect(await loadVapidKeys(keys, { stateDir: dir })).toEqual({ keys, source: 'env', created: false });
    await expect(stat(vapidKeysPath(dir))).rejects.toThrow(/ENOENT/);
  });
});

const inquiry = (overrides: Partial<Inquiry> = {}): Inquiry => ({
  inquiryId: '01JABCDEFGHJKMNPQRSTVWXYZ0',
  userId: 'u',
  asker: { tokenSubject: 'agent' },
  question: 'Ship it?',
  format: 'text',
  kind: 'approval',
  critical: false,
  createdAt: 1_000_000,
  deadlines: { deviceAt: 1_030_000, serviceAt: 1_050_000, clientAt: 1_090_000 },
  status: 'pending',
  ...overrides,
});

describe('push payloads', () => {
  it('the Topic is at most 32 URL-safe base64 characters, the same for one inquiry, different for another', () => {
    const topic = pushTopic('01JABCDEFGHJKMNPQRSTVWXYZ0');
    expect(topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(pushTopic('01JABCDEFGHJKMNPQRSTVWXYZ0')).toBe(topic);
    expect(pushTopic('01JABCDEFGHJKMNPQRSTVWXYZ1')).not.toBe(topic);
  });

  it('TTL is the seconds left to answer: answerBy when set, else the service deadline; never negative', () => {
    expect(inquiryTtl(inquiry(), 1_000_000)).toBe(50);
    const long = inquiry({ deadlines: { ...inquiry().deadlines, answerBy: 1_000_000 + 7 * 24 * 3600_000 } });
    expect(inquiryTtl(long, 1_000_000)).toBe(7 * 24 * 3600);
    expect(inquiryTtl(inquiry(), 2_000_000)).toBe(0);
  });

  it('cuts a long question to 1 KB of UTF-8 between characters, marking the cut', () => {
    const emoji = '😀'.repeat(600);
    const cut = cutToBytes(emoji, 1024);
    expect(new TextEncoder().encode(cut).byteLength).toBeLessThanOrEqual(1024);
    expect(cut.endsWith('😀…')).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    const words = cutToBytes('word '.repeat(400), 1024);
    expect(words.endsWith('word…')).toBe(true);
    expect(cutToBytes('short', 1024)).toBe('short');
    const pushed = inquiryPush(inquiry({ question: 'é'.repeat(5000) }));
    expect(new TextEncoder().encode(pushed.question).byteLength).toBeLessThanOrEqual(1024);
  });

  it('options go whole when they fit and are left out when they do not', () => {
    expect(inquiryPush(inquiry({ options: ['approve', 'reject'] })).options).toEqual(['approve', 'reject']);
    const many = Array.from({ length: 100 }, (_, n) => `option ${n} ${'x'.repeat(40)}`);
    expect(inquiryPush(inquiry({ options: many })).options).toBeUndefined();
    expect(inquiryPush(inquiry())).toEqual({
      type: 'inquiry',
      inquiryId: '01JABCDEFGHJKMNPQRSTVWXYZ0',
      question: 'Ship it?',
      kind: 'approval',
      answerBy: 1_050_000,
    });
  });

  it('the resolved push leaves out the device id and the rationale', () => {
    const done = inquiry({
      status: 'timed_out',
      resolvedBy: {
        kind: 'decision-agent',
        strategy: 'agent',
        rationale: 'r'.repeat(5000),
        trigger: 'service-timer',
      },
    });
    expect(resolvedPush(done)).toEqual({
      type: 'resolved',
      inquiryId: done.inquiryId,
      status: 'timed_out',
      resolvedBy: { kind: 'decision-agent', strategy: 'agent', trigger: 'service-timer' },
    });
  });
});

describe('push endpoints', () => {
  it('https is allowed, http only for listed hosts, local addresses only when listed', () => {
    expect(endpointProblem('https://fcm.googleapis.com/fcm/send/abc', [])).toBeUndefined();
    expect(endpointProblem('http://fcm.googleapis.com/fcm/send/abc', [])).toMatch(
      /^endpoint: must be an https: URL/,
    );
    expect(endpointProblem('http://127.0.0.1:9000/p', ['127.0.0.1'])).toBeUndefined();
    expect(endpointProblem('http://127.0.0.1:9000/p', ['127.0.0.1:9000'])).toBeUndefined();
    expect(endpointProblem('http://127.0.0.1:9001/p', ['127.0.0.1:9000'])).toMatch(/https/);
    for (const local of [
      'https://localhost/p',
      'https://127.0.0.1/p',
      'https://192.168.1.2/p',
      'https://[::1]/p',
      'https://169.254.169.254/latest',
      // Issue 34, finding 8: the same guard as webhooks (packages/auth/src/outbound-guard.ts).
      'https://100.100.100.200/latest',
      'https://192.0.0.8/p',
      'https://198.18.0.1/p',
      'https://224.0.0.251/p',
      'https://[64:ff9b::a9fe:a9fe]/p',
      'https://[fec0::1]/p',
      'https://localhost./p',
    ]) {
      expect(endpointProblem(local, []), local).toMatch(
        /^endpoint: .*list the host in HITL_PUSH_ALLOW_HTTP_HOSTS/,
      );
    }
    expect(endpointProblem('https://user:pw@push.example/p', [])).toMatch(/user name or password/);
  });
});
