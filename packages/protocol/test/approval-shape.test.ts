import { describe, expect, it } from 'vitest';
import {
  AllowForSchema,
  applyEdit,
  editableNames,
  matchesArguments,
  sameJson,
  standingProblem,
} from '../src/index.js';

describe('edits', () => {
  const asked = { path: '/srv/cache', recursive: true };

  it('merges new values over the asked ones and names what changed', () => {
    expect(applyEdit(asked, { path: '/srv/cache/tmp' }, ['path'])).toEqual({
      ok: true,
      arguments: { path: '/srv/cache/tmp', recursive: true },
      changed: ['path'],
    });
  });

  it('lets a name that is not editable through only unchanged', () => {
    expect(applyEdit(asked, { recursive: true }, ['path'])).toMatchObject({ ok: true, changed: [] });
    expect(applyEdit(asked, { recursive: false }, ['path'])).toEqual({
      ok: false,
      problem: 'arguments.recursive: not editable on this approval',
    });
    expect(applyEdit(asked, { force: true }, ['path'])).toMatchObject({ ok: false });
  });

  it('makes every name of the schema and the call editable for `true`', () => {
    const action = { arguments: { a: 1 }, inputSchema: { type: 'object', properties: { b: {} } } };
    expect(editableNames(true, action).sort()).toEqual(['a', 'b']);
    expect(editableNames(['a'], action)).toEqual(['a']);
    expect(editableNames(undefined, action)).toEqual([]);
  });
});

describe('standing approvals', () => {
  it('match exact values only, key order aside', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(matchesArguments({ path: '/tmp' }, { path: '/tmp', x: 1 })).toBe(true);
    expect(matchesArguments({ path: '/tmp' }, { path: '/tmp/' })).toBe(false);
    expect(matchesArguments({ n: 1 }, { n: '1' })).toBe(false);
    expect(matchesArguments({ path: '/tmp' }, {})).toBe(false);
    expect(matchesArguments(undefined, { anything: true })).toBe(true);
  });

  it('are never made for critical, quorum or standing-false approvals', () => {
    const base = { kind: 'approval' as const, critical: false, action: {} };
    expect(standingProblem(base)).toBeNull();
    expect(standingProblem({ ...base, critical: true })).toContain('critical');
    expect(standingProblem({ ...base, quorum: 2 })).toContain('several people');
    expect(standingProblem({ ...base, standing: false })).toContain('policy');
    expect(standingProblem({ kind: 'question', critical: false })).toContain('only an approval');
  });

  it('take whole minutes from 1 up to the cap', () => {
    for (const minutes of [0, -1, 1.5, 1e9, Number.NaN]) {
      expect(AllowForSchema.safeParse({ minutes }).success).toBe(false);
    }
    expect(AllowForSchema.safeParse({ minutes: 15, match: { path: '/tmp' } }).success).toBe(true);
  });
});
