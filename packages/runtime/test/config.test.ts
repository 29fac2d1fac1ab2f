import { describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { ConfigError, defaultMaxConnections, loadConfig, redactUrl } from '../src/index.js';

/** The message of the ConfigError `loadConfig(env)` throws (the test fails when it throws none). */
function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig: every bad variable at once', () => {
  it('names every bad field and every cross-field problem in one error', () => {
    const message = problemsOf({
      PORT: 'eighty',
      HITL_STORE: 'disk',
      HITL_RATE_PER_MIN: '-1',
      HITL_DEVICE_TIMEOUT_MS: '60000',
      HITL_SERVICE_TIMEOUT_MS: '50000',
      HITL_LLM_URL: 'http://127.0.0.1:1/v1',
      HITL_SMTP_URL: 'smtp://mail.example.com:25',
      HITL_VAPID_SUBJECT: 'mailto:ops@example.com',
    });
    expect(message).toContain('PORT="eighty"');
    expect(message).toContain('HITL_STORE="disk"');
    expect(message).toContain('HITL_RATE_PER_MIN="-1"');
    expect(message).toContain('HITL_DEVICE_TIMEOUT_MS=60000 must be less than HITL_SERVICE_TIMEOUT_MS=50000');
    expect(message).toMatch(/HITL_LLM_MODEL="": required when HITL_LLM_URL is set/);
    expect(message).toMatch(/HITL_EMAIL_FROM="": required when HITL_SMTP_URL is set/);
    expect(message).toMatch(/HITL_VAPID_PUBLIC_KEY="": required/);
    expect(message).toMatch(/HITL_VAPID_PRIVATE_KEY="": required/);
    // One line per problem.
    expect(message.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(8);
  });

  it('tier ordering names both variables and their values, both pairs when both are wrong', () => {
    const message = problemsOf({
      HITL_DEVICE_TIMEOUT_MS: '70000',
      HITL_SERVICE_TIMEOUT_MS: '60000',
      HITL_CLIENT_TIMEOUT_MS: '60000',
    });
    expect(message).toContain('HITL_DEVICE_TIMEOUT_MS=70000 must be less than HITL_SERVICE_TIMEOUT_MS=60000');
    expect(message).toContain('HITL_SERVICE_TIMEOUT_MS=60000 must be less than HITL_CLIENT_TIMEOUT_MS=60000');
  });

  it('a variable required by a bad one is named with it', () => {
    const message = problemsOf({ HITL_SMTP_URL: 'smtp://mail.example.com:notaport' });
    expect(message).toContain('HITL_SMTP_URL="smtp://mail.example.com:notaport"');
    expect(message).toMatch(/HITL_EMAIL_FROM="": required when HITL_SMTP_URL is set/);
  });

  it('a tier that is itself bad is named alone, not compared', () => {
    const message = problemsOf({ HITL_DEVICE_TIMEOUT_MS: 'soon', HITL_SERVICE_TIMEOUT_MS: '999' });
    expect(message).toContain('HITL_DEVICE_TIMEOUT_MS="soon"');
    expect(message).toContain('HITL_SERVICE_TIMEOUT_MS="999"');
    expect(message).not.toContain('must be less than');
  });
});

describe('loadConfig: secrets are never printed', () => {
  it('a short HITL_SECRET is named, its value is not', () => {
    const secret = 'short-but-very-secret';
    const message = problemsOf({ HITL_SECRET: secret });
    expect(message).toContain('HITL_SECRET');
    expect(message).toContain('at least 32 characters');
    expect(message).not.toContain(secret);
  });

  it('a URL with a password is shown with the password as ***', () => {
    const message = problemsOf({
      HITL_SMTP_URL: 'http://mailer:smtp-pass-123@mail.example.com:25',
      REDIS_URL: 'redis://:redis-pass-456@127.0.0.1:99999',
      HITL_DECISION_URL: 'http://ops:decide-pass-789@decide.local:bad/',
    });
    expect(message).toContain('HITL_SMTP_URL="http://mailer:***@mail.example.com:25"');
    expect(message).toContain('REDIS_URL="redis://:***@127.0.0.1:99999"');
    expect(message).toContain('HITL_DECISION_URL="http://ops:***@decide.local:bad/"');
    for (const password of ['smtp-pass-123', 'redis-pass-456', 'decide-pass-789']) {
      expect(message).not.toContain(password);
    }
  });

  it('a password in a cross-field problem stays hidden too', () => {
    const message = problemsOf({ HITL_SMTP_URL: 'smtps://mailer:smtp-pass-123@mail.example.com' });
    expect(message).toMatch(/HITL_EMAIL_FROM="": required when HITL_SMTP_URL is set/);
    expect(message).not.toContain('smtp-pass-123');
  });

  it('a bad VAPID private key is named, its value is not', () => {
    const keys = webpush.generateVAPIDKeys();
    const privateKey = `${keys.privateKey}x`;
    const message = problemsOf({
      HITL_VAPID_PUBLIC_KEY: keys.publicKey,
      HITL_VAPID_PRIVATE_KEY: privateKey,
      HITL_VAPID_SUBJECT: 'mailto:ops@example.com',
    });
    expect(message).toContain('HITL_VAPID_PRIVATE_KEY');
    expect(message).not.toContain(privateKey);
    expect(message).not.toContain(keys.privateKey);
  });
});

describe('loadConfig: defaults', () => {
  it('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      tiers: { deviceMs: 30_000, serviceMs: 50_000, clientMs: 90_000 },
      embeddedStore: 'sqlite',
      allowedHosts: [],
      allowedOrigins: [],
      ratePerMin: 600,
      maxConnections: defaultMaxConnections(),
      maxPendingPerUser: 1000,
      maxSocketsPerToken: 20,
      handshakesPerMin: 60,
      pairingTtlMs: 600_000,
      heartbeatMs: 10_000,
      retentionMs: 7 * 24 * 3600_000,
      sweepMs: 500,
      drainMs: 10_000,
      texts: {
        timeout: "I'm busy right now; use your own judgement.",
        refusal: "I'm not sure about the details; decide as you see fit.",
      },
      policy: {},
      decisionLogMax: 10_000,
      push: { allowHttpHosts: [] },
      webhooks: { allowHosts: [], backoffMs: 5000 },
      logLevel: 'info',
    });
    expect(config.stateDir).toMatch(/\.hitl$/);
    for (const key of ['redisUrl', 'redisClusterNodes', 'secret', 'decisionUrl', 'llm', 'email'] as const) {
      expect(config[key]).toBeUndefined();
    }
  });

  it('an empty value counts as unset', () => {
    expect(loadConfig({ PORT: '', HITL_SECRET: '' })).toMatchObject({ port: 8787, secret: undefined });
  });

  it('parses lists, cluster seeds and the optional groups', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: 'a:7000,b:7001',
      HITL_ALLOWED_HOSTS: ' Hitl.Example.com ,x',
      HITL_LLM_URL: 'http://h/v1',
      HITL_LLM_MODEL: 'm',
      HITL_LLM_API_KEY: 'k',
      HITL_SMTP_URL: 'smtp://u:p@mail:25',
      HITL_EMAIL_FROM: 'hitl@example.com',
    });
    expect(config.redisClusterNodes).toEqual([
      { host: 'a', port: 7000 },
      { host: 'b', port: 7001 },
    ]);
    expect(config.allowedHosts).toEqual(['hitl.example.com', 'x']);
    expect(config.llm).toEqual({ url: 'http://h/v1', model: 'm', apiKey: 'k' });
    expect(config.email).toEqual({ smtpUrl: 'smtp://u:p@mail:25', from: 'hitl@example.com' });
  });
});

describe('redactUrl', () => {
  it('hides passwords, lone user parts and secret query values, and leaves the rest as written', () => {
    expect(redactUrl('smtps://mailer:p%40ss@mail.example.com:465')).toBe(
      'smtps://mailer:***@mail.example.com:465',
    );
    expect(redactUrl('redis://:pa/ss#1@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactUrl('https://ghp_token123@git.example.com/x')).toBe('https://***@git.example.com/x');
    expect(redactUrl('http://h/v1?api_key=k-123&model=m')).toBe('http://h/v1?api_key=***&model=m');
    expect(redactUrl('redis://cache:6379')).toBe('redis://cache:6379');
    expect(redactUrl('ops@example.com')).toBe('ops@example.com');
    expect(redactUrl(':hunter2@cache:6379', { bare: true })).toBe(':***@cache:6379');
  });
});

describe('loadConfig: HITL_SLACK_*', () => {
  it('both credentials or neither; the API URL defaults to Slack’s own', () => {
    expect(loadConfig({}).slack).toBeUndefined();
    expect(
      loadConfig({ HITL_SLACK_BOT_TOKEN: 'xoxb-1-2-abc', HITL_SLACK_SIGNING_SECRET: 'abcdef0123456789' })
        .slack,
    ).toEqual({
      botToken: 'xoxb-1-2-abc',
      signingSecret: 'abcdef0123456789',
      apiUrl: 'https://slack.com/api/',
    });
    expect(problemsOf({ HITL_SLACK_BOT_TOKEN: 'xoxb-1-2-abc' })).toMatch(
      /HITL_SLACK_SIGNING_SECRET="": required when HITL_SLACK_BOT_TOKEN is set/,
    );
    expect(problemsOf({ HITL_SLACK_SIGNING_SECRET: 'abcdef0123456789' })).toMatch(
      /HITL_SLACK_BOT_TOKEN="": required when HITL_SLACK_SIGNING_SECRET is set/,
    );
    expect(problemsOf({ HITL_SLACK_API_URL: 'ftp://slack.example/api/' })).toContain(
      'HITL_SLACK_API_URL="ftp://',
    );
  });

  it('a bad token or signing secret is named, its value never shown', () => {
    const token = 'not-a-token-but-secret-9f8e7d';
    const secret = 'short';
    const message = problemsOf({ HITL_SLACK_BOT_TOKEN: token, HITL_SLACK_SIGNING_SECRET: secret });
    expect(message).toContain('HITL_SLACK_BOT_TOKEN: expected a Slack bot token');
    expect(message).toContain('HITL_SLACK_SIGNING_SECRET');
    expect(message).not.toContain(token);
    expect(message).not.toContain(`"${secret}"`);
  });
});
