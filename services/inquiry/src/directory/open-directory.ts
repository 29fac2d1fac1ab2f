import { ConfigError } from '@hitl/runtime';
import type { Logger } from 'pino';
import { DirectoryHolder } from './directory.js';
import { DirectoryError } from './directory-file.js';

/** Opens `HITL_DIRECTORY_FILE` for a starting node; a bad file stops the start as a configuration error. */
export async function openDirectory(path: string | undefined, logger: Logger): Promise<DirectoryHolder> {
  try {
    return await DirectoryHolder.open(path, logger);
  } catch (error) {
    if (!(error instanceof DirectoryError)) throw error;
    throw new ConfigError(
      `invalid configuration:\n  HITL_DIRECTORY_FILE=${JSON.stringify(path)}: ${error.message}`,
    );
  }
}
