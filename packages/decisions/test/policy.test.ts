import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chooseStrategy,
  loadPolicyFile,
  type PolicyConfig,
  suggestionsEnabled,
  withForbidden,
} from '../src/index.js';
import { approval, inquiry } from '../src/testing/fixtures.js';

describe('which strategy runs', () => {
  it('defaults: preset_text for questions, fail_closed for critical inquiries and approvals', () => {
    expect(chooseStrategy({}, inquiry(), 'service-timer').strategy).toBe('preset_text');
    expect(chooseStrategy({}, inquiry({ critical: true }), 'refusal').strategy).toBe('fail_closed');
    expect(chooseStrategy({}, approval(), 'device-timer').strategy).toBe('fail_closed');
  });

  it('a critical inquiry gets only fail_closed or preset_text, whatever its fallback says, and says why', () => {
    for (const asked of ['default_answer', 'random', 'approve', 'agent'] as const) {
      const choice = chooseStrategy(
        {},
        inquiry({ critical: true, fallback: { onTimeout: asked } }),
        'service-timer',
      );
      expect(choice).toMatchObject({ strategy: 'fail_closed', requested: asked });
      expect(choice.forbidden).toMatch(/critical/);
    }
    const preset = inquiry({ critical: true, fallback: { onRefusal: 'preset_text' } });
    expect(chooseStrategy({}, preset, 'refusal')).toEqual({
      strategy: 'preset_text',
      requested: 'preset_text',
    });
  });

  it("the inquiry's fallback picks per trigger", () => {
    const i = inquiry({ fallback: { onTimeout: 'random', onRefusal: 'agent' } });
    expect(chooseStrategy({}, i, 'device-timer').strategy).toBe('random');
    expect(chooseStrategy({}, i, 'service-timer').strategy).toBe('random');
    expect(chooseStrategy({}, i, 'refusal').strategy).toBe('agent');
  });

  it('server defaults apply to ordinary questions, the narrowest scope winning', () => {
    const policy: PolicyConfig = {
      defaults: { onTimeout: 'default_answer' },
      users: { alice: { defaults: { onTimeout: 'agent' } } },
      tokens: { 'shop bot': { defaults: { onTimeout: 'random' } } },
    };
    expect(
      chooseStrategy(policy, inquiry({ userId: 'bob', asker: { tokenSubject: 'bob' } }), 'service-timer')
        .strategy,
    ).toBe('default_answer');
    expect(
      chooseStrategy(policy, inquiry({ asker: { tokenSubject: 'alice' } }), 'service-timer').strategy,
    ).toBe('agent');
    expect(chooseStrategy(policy, inquiry(), 'service-timer').strategy).toBe('random');
    expect(chooseStrategy(policy, approval(), 'service-timer').strategy).toBe('fail_closed');
  });

  it('a forbidden strategy fails closed and says who forbids it', () => {
    const policy: PolicyConfig = {
      users: { alice: { forbid: ['approve'] } },
      tokens: { 'shop bot': { forbid: ['random'] } },
    };
    expect(chooseStrategy(policy, approval({ fallback: { onTimeout: 'approve' } }), 'service-timer')).toEqual(
      {
        strategy: 'fail_closed',
        requested: 'approve',
        forbidden: 'approve is forbidden for user alice',
      },
    );
    expect(chooseStrategy(policy, inquiry({ fallback: { onRefusal: 'random' } }), 'refusal').forbidden).toBe(
      'random is forbidden for token "shop bot"',
    );
    expect(
      chooseStrategy(withForbidden({}, ['agent']), inquiry({ fallback: { onRefusal: 'agent' } }), 'refusal')
        .forbidden,
    ).toBe('agent is forbidden for this server');
  });

  it('suggestions follow the narrowest scope that mentions them', () => {
    expect(suggestionsEnabled({}, inquiry())).toBe(false);
    expect(suggestionsEnabled({ suggest: true, tokens: { 'shop bot': { suggest: false } } }, inquiry())).toBe(
      false,
    );
    expect(suggestionsEnabled({ users: { alice: { suggest: true } } }, inquiry())).toBe(true);
  });
});

describe('policy files', () => {
  const write = (json: unknown) => {
    const path = join(mkdtempSync(join(tmpdir(), 'hitl-policy-')), 'policy.json');
    writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
    return path;
  };

  it('loads a valid file', () => {
    const path = write({ forbid: ['approve'], users: { bob: { suggest: true } } });
    expect(loadPolicyFile(path)).toEqual({ forbid: ['approve'], users: { bob: { suggest: true } } });
  });

  it.each([
    [{ defaults: { onTimeout: 'approve' } }, /defaults\.onTimeout: approve cannot be a server default/],
    [{ forbid: ['fail_closed'] }, /forbid\.0: fail_closed cannot be forbidden/],
    [{ users: { bob: { forbid: ['yolo'] } } }, /users\.bob\.forbid\.0/],
    [{ surprise: true }, /surprise/],
    ['{not json', /cannot read a JSON policy/],
  ])('refuses %j naming the field', (json, message) => {
    expect(() => loadPolicyFile(write(json))).toThrow(message);
  });
});
