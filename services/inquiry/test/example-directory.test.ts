import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseDirectory, readDirectoryFile } from '../src/directory/directory-file.js';

/** The sample the docs start a node with (`HITL_DIRECTORY_FILE=examples/directory.yaml npm start`). */
const SAMPLE = fileURLToPath(new URL('../../../examples/directory.yaml', import.meta.url));

describe('examples/directory.yaml', () => {
  it('loads through the node directory loader: people, mail, teams with askers and escalation', async () => {
    const directory = await readDirectoryFile(SAMPLE);
    expect(Object.keys(directory.users)).toEqual(expect.arrayContaining(['demo', 'ada', 'bob']));
    expect(directory.users.bob).toMatchObject({ notify: ['push', 'email'], emailAfterMs: 600_000 });
    expect(directory.teams.ops).toMatchObject({ escalateTo: { team: 'leads' }, escalateAfterMs: 300_000 });
    expect(directory.teams.ops?.askers).toContain('demo');
    expect(directory.webhooks).toEqual([]);
  });

  it('its commented-out webhook is valid once switched on', async () => {
    const text = await readFile(SAMPLE, 'utf8');
    // Drop the live `webhooks: []` and take the commented block (`# webhooks:` and its `#   ` lines).
    const switchedOn = text.replace(/^webhooks: \[\]$/m, '').replace(/^# (webhooks:| {2}.*)$/gm, '$1');
    const directory = parseDirectory(parseYaml(switchedOn), 'uncommented sample');
    expect(directory.webhooks).toEqual([
      {
        url: 'https://relay.example.com/hitl',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        events: ['inquiry.created', 'inquiry.resolved'],
        users: ['ada', 'bob'],
      },
    ]);
  });
});
