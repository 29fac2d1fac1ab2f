import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SecretSource {
  secret: string;
  /** True when this start created the secret (first embedded start). */
  created: boolean;
  path?: string;
}

/** The configured secret, or one kept in the state folder (created, mode 0600, on first start). */
export async function loadOrCreateSecret(
  configured: string | undefined,
  stateDir: string,
): Promise<SecretSource> {
  if (configured) return { secret: configured, created: false };
  const path = join(stateDir, 'secret');
  try {
    const stored = (await readFile(path, 'utf8')).trim();
    if (stored.length >= 32) return { secret: stored, created: false, path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'w' });
  return { secret, created: true, path };
}
