import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/hitl.js', import.meta.url));

const SECRET = 'short-hitl-secret-value';
const SMTP_PASSWORD = 'smtp-pass-123';
const REDIS_PASSWORD = 'redis-pass-456';
const LLM_KEY = 'sk-llm-key-789';

/** Bad values that carry secrets: a short secret, URLs with passwords that do not parse. */
const BAD = {
  HITL_SECRET: SECRET,
  HITL_SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@mail.example.com:notaport`,
  REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:99999`,
  HITL_LLM_URL: 'http://127.0.0.1:1/v1',
  HITL_LLM_API_KEY: LLM_KEY,
};

let stateDir = '';
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'hitl-config-secrets-'));
});
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** Runs the bin to its exit; resolves with its code and everything it wrote (stdout + stderr). */
function hitl(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HITL_STATE_DIR: stateDir, LOG_LEVEL: 'info', PORT: '0', ...env },
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function expectNoSecret(output: string, secrets: string[]): void {
  for (const secret of secrets) expect(output).not.toContain(secret);
}

describe('security: a bad configuration never prints a secret', () => {
  const commands: [string, string[]][] = [
    ['serve', ['serve']],
    ['decide', ['decide']],
    ['proxy', ['proxy', '--backend-cmd', 'node never-started.js']],
    ['token create', ['token', 'create', '--user', 'alice', '--role', 'agent']],
  ];

  it.each(commands)(
    'hitl %s exits non-zero, naming every bad variable and hiding its secret',
    async (_, args) => {
      const { code, output } = await hitl(args, BAD);
      expect(code).not.toBe(0);
      expectNoSecret(output, [SECRET, SMTP_PASSWORD, REDIS_PASSWORD, LLM_KEY]);
      for (const name of ['HITL_SECRET', 'HITL_SMTP_URL', 'REDIS_URL', 'HITL_LLM_MODEL', 'HITL_EMAIL_FROM']) {
        expect(output).toContain(name);
      }
      expect(output).toContain('mail.example.com');
    },
  );

  it('a URL that parses but is wrong is shown with its password as ***', async () => {
    const { code, output } = await hitl(['serve'], {
      HITL_SMTP_URL: `http://mailer:${SMTP_PASSWORD}@mail.example.com:25`,
      HITL_EMAIL_FROM: 'hitl@example.com',
    });
    expect(code).not.toBe(0);
    expect(output).toContain('HITL_SMTP_URL="http://mailer:***@mail.example.com:25"');
    expectNoSecret(output, [SMTP_PASSWORD]);
  });

  it('hitl proxy: a bad --backend-url with a password is named without it', async () => {
    const { code, output } = await hitl(
      ['proxy', '--backend-url', `https://bot:${SMTP_PASSWORD}@mcp.example.com:x/`],
      {},
    );
    expect(code).not.toBe(0);
    expect(output).toContain('--backend-url');
    expectNoSecret(output, [SMTP_PASSWORD]);
  });
});
