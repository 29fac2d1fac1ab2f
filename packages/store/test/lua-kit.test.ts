import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScriptDir, readReply, ScriptReplyError } from '../src/index.js';

function luaDir(files: Record<string, string>): URL {
  const dir = mkdtempSync(join(tmpdir(), 'lua-kit-'));
  mkdirSync(join(dir, 'include'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return pathToFileURL(`${dir}/`);
}

describe('loadScriptDir', () => {
  it('names each <verb>-<numKeys>.lua as a command and pastes its includes', () => {
    const dir = luaDir({
      'grant-decide-1.lua': '-- header\n-- #include shared-block\nreturn {1}\n',
      'op-begin-2.lua': 'return {0}\n',
      'record-many-n.lua': 'return #KEYS\n',
      'include/shared-block.lua': 'local function shared() return 1 end\n',
    });
    expect(loadScriptDir(dir, 'hitlTest')).toEqual([
      {
        command: 'hitlTestGrantDecide',
        numberOfKeys: 1,
        lua: '-- header\nlocal function shared() return 1 end\nreturn {1}\n',
      },
      { command: 'hitlTestOpBegin', numberOfKeys: 2, lua: 'return {0}\n' },
      // `-n`: any number of keys, counted by the caller
      { command: 'hitlTestRecordMany', numberOfKeys: undefined, lua: 'return #KEYS\n' },
    ]);
  });

  it('refuses a file that does not say how many keys it takes', () => {
    expect(() => loadScriptDir(luaDir({ 'decide.lua': 'return {1}' }), 'hitlTest')).toThrow(
      /<verb>-<numKeys\|n>\.lua: decide\.lua/,
    );
  });
});

describe('readReply', () => {
  enum Code {
    Done = 1,
    NotFound = -1,
  }

  it('tags an expected code and its fields', () => {
    expect(readReply('s-1', [Code.NotFound, 'a', null, 3], [Code.Done, Code.NotFound], Code)).toEqual({
      code: Code.NotFound,
      fields: ['a', null, '3'],
    });
  });

  it('throws on any other code, named when the enum knows it', () => {
    expect(() => readReply('s-1', [-9], [Code.Done], Code)).toThrow(ScriptReplyError);
    expect(() => readReply('s-1', [-9], [Code.Done], Code)).toThrow(
      'Redis script s-1 answered an unknown code (-9)',
    );
    expect(() => readReply('s-1', [-1], [Code.Done], Code)).toThrow(
      'Redis script s-1 answered NotFound (-1)',
    );
  });
});
