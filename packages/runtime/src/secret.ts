import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SecretSource {
  secret: string;
  /** True when this start created the secret (first embedded start). */
  created: boolean;
  path?: string;
}

/** The least length of a secret, in characters (HS256 wants at least 256 bits of key). */
export const MIN_SECRET_CHARS = 32;

/** A secret file or folder that is unsafe to use: the start stops, and the message says what to fix. */
export class SecretFileError extends Error {
  override readonly name = 'SecretFileError';
}

/** POSIX modes mean nothing on Windows; there the checks below are skipped. */
const CHECK_MODES = process.platform !== 'win32';

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Creates the state folder 0700, or checks that an existing one is a folder only its owner reads. */
export async function safeStateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await stat(dir);
  if (!info.isDirectory()) throw new SecretFileError(`the state folder ${dir} is not a folder`);
  if (CHECK_MODES && (info.mode & 0o077) !== 0) {
    throw new SecretFileError(
      `the state folder ${dir} can be read by others (mode ${octal(info.mode)}); run: chmod 700 ${dir}`,
    );
  }
}

/**
 * Reads a private file of the state folder (the secret, the VAPID keys) after checking it is a plain
 * file, not a link, readable by its owner only, and owned by the user running hitl.
 * @param what names the file in messages ("the secret", "the VAPID keys")
 * @returns the file's text, or null when it does not exist
 * @throws SecretFileError saying what to fix
 */
export async function readPrivateFile(path: string, what: string): Promise<string | null> {
  const info = await lstatOrNull(path);
  if (!info) return null;
  if (info.isSymbolicLink()) {
    throw new SecretFileError(
      `${path} is a symbolic link; it is not followed. Put ${what} itself there (or remove the link to make a new one)`,
    );
  }
  if (!info.isFile())
    throw new SecretFileError(`${path} is not a regular file; remove it or put ${what} there`);
  if (CHECK_MODES && (info.mode & 0o077) !== 0) {
    throw new SecretFileError(
      `${path} can be read by others (mode ${octal(info.mode)}); run: chmod 600 ${path} (and make new ones if others may have read ${what})`,
    );
  }
  if (CHECK_MODES && typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    throw new SecretFileError(
      `${path} belongs to another user (uid ${info.uid}); it must be owned by the user running hitl`,
    );
  }
  // O_NOFOLLOW: a link swapped in after the check above is refused, not followed.
  const file = await open(path, constants.O_RDONLY | (CHECK_MODES ? constants.O_NOFOLLOW : 0));
  try {
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}

/** Reads an existing secret file (see {@link readPrivateFile}) and checks it is long enough. */
async function readSecretFile(path: string): Promise<string | null> {
  const text = await readPrivateFile(path, 'the secret');
  if (text === null) return null;
  const secret = text.trim();
  if (secret.length < MIN_SECRET_CHARS) {
    throw new SecretFileError(
      `${path} holds a secret of ${secret.length} characters; at least ${MIN_SECRET_CHARS} are needed. Put a longer one in it (e.g. openssl rand -base64 32 > ${path}) or remove the file to make a new one (tokens signed with the old secret stop working)`,
    );
  }
  return secret;
}

/**
 * The configured secret, or one kept in the state folder: created `0600` in a `0700` folder on the
 * first start. An existing file or folder others can read, a symbolic link, or a secret that is too
 * short stops the start with a {@link SecretFileError} saying what to fix: never a silent rewrite.
 * @throws SecretFileError
 */
export async function loadOrCreateSecret(
  configured: string | undefined,
  stateDir: string,
): Promise<SecretSource> {
  if (configured) return { secret: configured, created: false };
  const path = join(stateDir, 'secret');
  await safeStateDir(stateDir);
  const existing = await readSecretFile(path);
  if (existing !== null) return { secret: existing, created: false, path };
  const secret = randomBytes(32).toString('base64url');
  // `wx`: created here or not at all, so a file or link that appeared meanwhile is never written through.
  await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return { secret, created: true, path };
}
