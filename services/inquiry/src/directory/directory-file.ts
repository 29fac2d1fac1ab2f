import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type Directory, DirectorySchema } from '@hitl/protocol';
import { parse as parseYaml } from 'yaml';

/** A directory file that cannot be used; the message names the file and every bad field. */
export class DirectoryError extends Error {
  override readonly name = 'DirectoryError';
}

/** Checks a parsed directory document; the error names each bad field by its path. */
export function parseDirectory(document: unknown, source: string): Directory {
  const parsed = DirectorySchema.safeParse(document ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path || '(top level)'}: ${issue.message}`;
  });
  throw new DirectoryError(`${source} is invalid:\n  ${lines.join('\n  ')}`);
}

/** Reads `HITL_DIRECTORY_FILE`: `.json` as JSON, anything else as YAML (a superset of JSON). */
export async function readDirectoryFile(path: string): Promise<Directory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DirectoryError(`cannot read directory ${path}: ${(error as Error).message}`);
  }
  const json = extname(path).toLowerCase() === '.json';
  let document: unknown;
  try {
    document = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new DirectoryError(
      `directory ${path} is not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  return parseDirectory(document, `directory ${path}`);
}
