import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { KEY_BYTES, type KeySource } from './key-source';
import { createPrivateFile, ensurePrivateDir, openRegularFile, writePrivateFile } from './private-files';
import { VaultError } from './vault-error';

/**
 * Something that seals a short string so that only this user on this machine can open it. The
 * Electron shell implements it with `safeStorage` (Electron 45):
 *
 *   seal: (text) => safeStorage.encryptStringAsync(text),
 *   unseal: async (sealed) => { const r = await safeStorage.decryptStringAsync(sealed); return { text: r.result, reseal: r.shouldReEncrypt }; },
 *
 * and must refuse to build one when `safeStorage.getSelectedStorageBackend()` is `basic_text`
 * (a hard-coded password, no protection). The vault never imports Electron.
 */
export interface KeySealer {
  /** For messages and the vault manifest, e.g. "Electron safeStorage (gnome_libsecret)". */
  readonly name: string;
  seal(text: string): Promise<Buffer>;
  /** `reseal`: the sealer's own key was rotated; the source seals the key again with the new one. */
  unseal(sealed: Buffer): Promise<{ text: string; reseal?: boolean }>;
}

/**
 * The vault key, sealed by a `KeySealer`, in a 0600 file. The file alone is useless: opening it
 * needs the sealer (the OS keychain behind Electron's safeStorage).
 */
export class SealedKeyFileSource implements KeySource {
  readonly kind = 'sealed';
  readonly description: string;

  constructor(
    readonly path: string,
    private readonly sealer: KeySealer,
  ) {
    this.description = `sealed key file ${path} (opened by ${sealer.name})`;
  }

  async key(): Promise<Buffer> {
    const sealed = await this.readSealed();
    if (sealed) return this.open(sealed);
    await ensurePrivateDir(dirname(this.path));
    await createPrivateFile(this.path, await this.sealer.seal(randomBytes(KEY_BYTES).toString('base64')));
    const created = await this.readSealed();
    if (!created) throw new VaultError('key-file', `The sealed key file ${this.path} could not be created.`);
    return this.open(created);
  }

  private async open(sealed: Buffer): Promise<Buffer> {
    let opened;
    try {
      opened = await this.sealer.unseal(sealed);
    } catch (err) {
      throw new VaultError('wrong-key', `${this.sealer.name} could not open the sealed key file ${this.path} (${(err as Error).message}). It was sealed for another user or machine, or is damaged.`);
    }
    const key = Buffer.from(opened.text, 'base64');
    if (key.length !== KEY_BYTES) throw new VaultError('key-file', `The sealed key file ${this.path} does not hold a Portal Desk key.`);
    if (opened.reseal) await writePrivateFile(this.path, await this.sealer.seal(opened.text));
    return key;
  }

  /**
   * The sealed bytes, read through the one descriptor that was checked; null when there is no file. A link, a FIFO,
   * a folder or a device in its place is refused in its own words: read as it is, a FIFO gave no bytes, which the
   * sealer then reported as a key sealed for another machine.
   */
  private async readSealed(): Promise<Buffer | null> {
    const opened = await openRegularFile(this.path, {
      link: () => new VaultError('key-file', `The sealed key file ${this.path} is a symbolic link; Portal Desk uses only a plain file. Replace the link with the file it points to.`),
      notRegular: (kind) => new VaultError('key-file', `The sealed key file ${this.path} is not a regular file (${kind}); Portal Desk uses only the file it wrote.`),
      unopenable: (reason) => new VaultError('key-file', `The sealed key file ${this.path} cannot be opened (${reason}).`),
    });
    if (!opened) return null;
    try {
      return await opened.file.readFile();
    } finally {
      await opened.file.close();
    }
  }
}
