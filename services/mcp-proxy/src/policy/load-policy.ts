import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Policy, PolicySchema } from './policy-schema.js';

/** A policy file that cannot be used; the message names the file and each bad field. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/**
 * Checks an already-parsed policy document.
 * @throws PolicyError naming every bad field, e.g. `tools.delete_*.confidenceThreshold: must be between 0 and 1`.
 */
export function parsePolicy(document: unknown, source = 'policy'): Policy {
  const parsed = PolicySchema.safeParse(document ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path || '(top level)'}: ${issue.message}`;
  });
  throw new PolicyError(`${source} is invalid:\n  ${lines.join('\n  ')}`);
}

/** Reads a policy from a `.json`, `.yaml` or `.yml` file (other names: YAML, a superset of JSON). */
export async function loadPolicy(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new PolicyError(`cannot read policy ${path}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new PolicyError(
      `policy ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  return parsePolicy(document, `policy ${path}`);
}
