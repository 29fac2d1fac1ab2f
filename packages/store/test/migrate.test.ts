import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Migration, migrate, openStateDatabase } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'hitl-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const V1: Migration = { version: 1, up: 'CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL)' };
const V2: Migration = { version: 2, up: 'ALTER TABLE things ADD COLUMN colour TEXT' };
const V3: Migration = { version: 3, up: 'ALTER TABLE things ADD COLUMN size INTEGER NOT NULL DEFAULT 1' };

const columns = (db: ReturnType<typeof openStateDatabase>['db']) =>
  (db.prepare('PRAGMA table_info(things)').all() as { name: string }[]).map((c) => c.name);
const versionOf = (db: ReturnType<typeof openStateDatabase>['db']) =>
  (db.prepare("SELECT version FROM schema_versions WHERE component = 'things'").get() as { version: number })
    .version;

describe('migrate: ordered steps', () => {
  it('runs only the steps above the file version, so an ALTER step runs once per file', () => {
    const path = join(dir, 'steps.db');
    const first = openStateDatabase(path);
    migrate(first.db, 'things', [V1, V2]);
    first.db.prepare("INSERT INTO things (id, name, colour) VALUES ('a', 'apple', 'red')").run();
    first.close();

    // The next build adds a step: the file at version 2 gets step 3 alone (step 2's ALTER again would fail).
    const second = openStateDatabase(path);
    try {
      migrate(second.db, 'things', [V1, V2, V3]);
      expect(columns(second.db)).toEqual(['id', 'name', 'colour', 'size']);
      expect(second.db.prepare('SELECT * FROM things').all()).toEqual([
        { id: 'a', name: 'apple', colour: 'red', size: 1 },
      ]);
      expect(versionOf(second.db)).toBe(3);
      // Opening again at the same version runs nothing.
      migrate(second.db, 'things', [V1, V2, V3]);
      expect(versionOf(second.db)).toBe(3);
    } finally {
      second.close();
    }
  });

  it('runs every step on a new file', () => {
    const fresh = openStateDatabase(join(dir, 'fresh.db'));
    try {
      migrate(fresh.db, 'things', [V1, V2, V3]);
      expect(columns(fresh.db)).toEqual(['id', 'name', 'colour', 'size']);
    } finally {
      fresh.close();
    }
  });

  it('refuses a file written by a newer build, and steps numbered out of order', () => {
    const path = join(dir, 'newer.db');
    const newer = openStateDatabase(path);
    try {
      migrate(newer.db, 'things', [V1, V2, V3]);
      expect(() => migrate(newer.db, 'things', [V1, V2])).toThrow(
        /things tables are at version 3; this build knows up to 2/,
      );
      expect(() => migrate(newer.db, 'other', [V1, V3])).toThrow(/other migrations must be numbered 1, 2, 3/);
    } finally {
      newer.close();
    }
  });

  it('a step that fails leaves the file at its old version, unchanged', () => {
    const path = join(dir, 'failing.db');
    const db = openStateDatabase(path);
    try {
      migrate(db.db, 'things', [V1]);
      expect(() =>
        migrate(db.db, 'things', [V1, V2, { version: 3, up: 'ALTER TABLE nowhere ADD COLUMN x' }]),
      ).toThrow(/nowhere/);
      expect(versionOf(db.db)).toBe(1);
      expect(columns(db.db)).toEqual(['id', 'name']);
    } finally {
      db.close();
    }
  });
});
