import { describe, expect, it } from 'vitest';
import { ConfigError, defaultMaxConnections, loadConfig, openFileLimit } from '../src/index.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            4096                 524288               files
`;

describe('HTTP limits configuration', () => {
  it('reads the soft open-file limit, and falls back when it cannot', () => {
    expect(openFileLimit(() => LIMITS)).toBe(4096);
    expect(openFileLimit(() => LIMITS.replace('4096', 'unlimited'))).toBe(1_048_576);
    expect(
      openFileLimit(() => {
        throw new Error('no /proc here');
      }),
    ).toBe(1024);
  });

  it('defaults HITL_MAX_CONNECTIONS to the open-file limit less a margin, never below 16', () => {
    expect(defaultMaxConnections(4096)).toBe(3968);
    expect(defaultMaxConnections(64)).toBe(16);
    expect(loadConfig({}).maxConnections).toBe(defaultMaxConnections());
  });

  it('takes HITL_MAX_CONNECTIONS from the environment and refuses a bad one, naming it', () => {
    expect(loadConfig({ HITL_MAX_CONNECTIONS: '500' }).maxConnections).toBe(500);
    expect(() => loadConfig({ HITL_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ HITL_MAX_CONNECTIONS: 'many' })).toThrow(/HITL_MAX_CONNECTIONS="many"/);
  });
});
