import { type Directory, type DirectoryUser, EMPTY_DIRECTORY } from '@hitl/protocol';
import type { Logger } from 'pino';
import { readDirectoryFile } from './directory-file.js';

/**
 * The directory as this node knows it now. Loaded at start (a bad file stops the start), reloaded
 * on `SIGHUP`: a bad file then is logged and the last good one stays in force.
 */
export class DirectoryHolder {
  private directory: Directory;

  private constructor(
    private readonly path: string | undefined,
    initial: Directory,
    private readonly logger: Logger,
  ) {
    this.directory = initial;
  }

  /** @throws DirectoryError when the file cannot be read or is invalid. */
  static async open(path: string | undefined, logger: Logger): Promise<DirectoryHolder> {
    const initial = path ? await readDirectoryFile(path) : EMPTY_DIRECTORY;
    return new DirectoryHolder(path, initial, logger);
  }

  get current(): Directory {
    return this.directory;
  }

  user(userId: string): DirectoryUser | undefined {
    return Object.hasOwn(this.directory.users, userId) ? this.directory.users[userId] : undefined;
  }

  /** Re-reads the file; returns whether the new one took effect. */
  async reload(): Promise<boolean> {
    if (!this.path) return false;
    try {
      this.directory = await readDirectoryFile(this.path);
      this.logger.info({ file: this.path }, 'directory reloaded');
      return true;
    } catch (error) {
      this.logger.error({ err: (error as Error).message }, 'directory not reloaded; the last good one stays');
      return false;
    }
  }

  /** Reloads on `SIGHUP` until the returned function is called (only when there is a file to read). */
  reloadOnHangup(): () => void {
    if (!this.path) return () => undefined;
    const onHangup = () => void this.reload();
    process.on('SIGHUP', onHangup);
    return () => process.off('SIGHUP', onHangup);
  }
}
