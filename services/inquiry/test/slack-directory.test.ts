import { readFileSync } from 'node:fs';
import { DirectorySchema, describeZodError } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** The directory's Slack fields, checked at start (and on every reload), and the Slack app manifest in docs/. */

describe('the directory’s Slack fields', () => {
  const check = (directory: unknown) => {
    const parsed = DirectorySchema.safeParse(directory);
    return parsed.success ? 'ok' : describeZodError(parsed.error);
  };

  it('member ids, channel ids, notify: slack', () => {
    expect(
      check({
        users: { ann: { slack: 'U0ANN', notify: ['slack', 'email'], email: 'ann@example.com' } },
        teams: { ops: { members: ['ann'], slackChannel: 'C0OPS' } },
      }),
    ).toBe('ok');
    expect(check({ users: { ann: { slack: 'ann' } } })).toMatch(
      /users\.ann\.slack: expected a Slack member id/,
    );
    expect(check({ users: { ann: { notify: ['slack'] } } })).toMatch(/users\.ann\.slack: notify names slack/);
    expect(check({ teams: { ops: { members: ['ann'], slackChannel: '#ops' } } })).toMatch(
      /teams\.ops\.slackChannel: expected a Slack channel id/,
    );
  });

  it('one member id is one person', () => {
    expect(check({ users: { ann: { slack: 'U0ANN' }, bob: { slack: 'U0ANN' } } })).toMatch(
      /users\.bob\.slack: Slack member U0ANN is already user "ann"/,
    );
  });
});

describe('the Slack app manifest in docs/', () => {
  it('asks for the scopes the node uses and sends interactivity to /slack/interactions', () => {
    const manifest = parse(
      readFileSync(new URL('../../../docs/slack-app-manifest.yaml', import.meta.url), 'utf8'),
    );
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual(['chat:write', 'im:write']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe('/slack/interactions');
    expect(manifest.settings.socket_mode_enabled).toBe(false);
  });
});
