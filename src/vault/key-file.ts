import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { KEY_BYTES, type KeySource } from './key-source';
import { createPrivateFile, ensurePrivateDir, openNoFollow, openRegularFile } from './private-files';
import { VaultError } from './vault-error';

interface KeyFileOptions {
  /**
   * What to say when the file is missing, instead of creating a new key: set for a vault that
   * already holds records sealed with this file's key, where a new key would only sit where the
   * restored one must go.
   */
  missing?: string;
}

/**
 * The key in a file of exactly 32 random bytes, mode 0600, created on first use (unless the
 * vault already has a key, see `missing`). A file that other users could read or write, that
 * belongs to someone else, or that is a symbolic link is refused rather than repaired: its key
 * may already be known to others.
 * (On Windows, where POSIX modes do not exist, the mode and owner checks are skipped.)
 */
export class KeyFileSource implements KeySource {
  readonly kind = 'file';
  readonly description: string;

  constructor(
    readonly path: string,
    private readonly options: KeyFileOptions = {},
  ) {
    this.description = `key file ${path}`;
  }

  /** Whether something is at the key file's path (a link or an unreadable file counts: `key()` then says what is wrong). */
  async exists(): Promise<boolean> {
    try {
      const file = await openNoFollow(this.path);
      await file?.close();
      return file !== null;
    } catch {
      return true;
    }
  }

  async key(): Promise<Buffer> {
    const existing = await this.read();
    if (existing) return existing;
    if (this.options.missing) throw new VaultError('key-missing', this.options.missing);
    await ensurePrivateDir(dirname(this.path));
    // Two processes may start at once: the link in createPrivateFile lets exactly one key win,
    // and both go on with the winner's.
    await createPrivateFile(this.path, randomBytes(KEY_BYTES));
    const created = await this.read();
    if (!created) throw new VaultError('key-file', `The key file ${this.path} could not be created.`);
    return created;
  }

  private async read(): Promise<Buffer | null> {
    const opened = await openRegularFile(this.path, {
      link: () => new VaultError('key-file', `The key file ${this.path} is a symbolic link; Portal Desk uses only a plain file. Replace the link with the file it points to.`),
      notRegular: () => new VaultError('key-file', `The key file ${this.path} is not a regular file.`),
      unopenable: (reason) => new VaultError('key-file', `The key file ${this.path} cannot be opened (${reason}).`),
    });
    if (!opened) return null;
    const { file, stat } = opened;
    try {
      if (process.platform !== 'win32') {
        const uid = process.getuid?.();
        if (uid !== undefined && stat.uid !== uid) {
          throw new VaultError('key-file', `The key file ${this.path} belongs to user id ${stat.uid}, not to you (${uid}); Portal Desk will not use it. Fix: chown $(id -u) '${this.path}' && chmod 600 '${this.path}'.`);
        }
        const mode = stat.mode & 0o777;
        if ((mode & 0o077) !== 0) {
          throw new VaultError(
            'key-file',
            `The key file ${this.path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); Portal Desk will not use it. ` +
              `Fix: chmod 600 '${this.path}'. If others could have read it, change the portal passwords stored in the vault.`,
          );
        }
      }
      const { bytesRead, buffer } = await file.read(Buffer.alloc(KEY_BYTES + 1), 0, KEY_BYTES + 1, 0);
      if (bytesRead !== KEY_BYTES) {
        throw new VaultError('key-file', `The key file ${this.path} holds ${bytesRead} bytes instead of ${KEY_BYTES}; it is damaged or not a Portal Desk key. Restore it from a backup; without it the saved logins cannot be read.`);
      }
      return buffer.subarray(0, KEY_BYTES);
    } finally {
      await file.close();
    }
  }
}
