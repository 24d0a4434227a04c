import { type LoginStateStore } from '../shared/credentials';
import { entryName } from './ids';
import { type KeySource } from './key-source';
import { SealedRecords } from './sealed-records';
import { VaultError } from './vault-error';

interface LoginStateEntry {
  clientId: string;
  portalId: string;
  updatedAt: string;
}

interface LoginStateStoreOptions {
  /** The vault folder; login states go to its `login-state/` subfolder. */
  dir: string;
  keySource: KeySource;
  now?: () => Date;
}

/** Sessions are cookies and local storage; 16 MB is far beyond any portal's and stops a runaway page. */
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * Saved login state (playwright's `storageState()` JSON) per client and portal, sealed like the
 * vault's logins, with the same key, in `<vault folder>/login-state/`. A record of one kind never
 * opens as the other: the kind is part of the authenticated data.
 */
export class EncryptedLoginStateStore implements LoginStateStore {
  private readonly records: SealedRecords;

  constructor(options: LoginStateStoreOptions) {
    this.records = new SealedRecords(options.dir, 'login-state', options.keySource, options.now);
  }

  async load(clientId: string, portalId: string): Promise<string | null> {
    const plaintext = await this.records.read(clientId, portalId);
    return plaintext ? plaintext.toString('utf8') : null;
  }

  async save(clientId: string, portalId: string, storageStateJson: string): Promise<void> {
    const name = entryName(clientId, portalId);
    const bytes = Buffer.from(storageStateJson, 'utf8');
    if (bytes.length > MAX_BYTES) throw new VaultError('bad-input', `The login state for ${name} is larger than 16 MB; nothing was saved.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(storageStateJson);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new VaultError('bad-input', `The login state for ${name} is not a JSON object (playwright's storageState()); nothing was saved.`);
    }
    await this.records.write(clientId, portalId, bytes);
  }

  async remove(clientId: string, portalId: string): Promise<void> {
    await this.records.remove(clientId, portalId);
  }

  /** Deletes the login state; false when there was none. */
  delete(clientId: string, portalId: string): Promise<boolean> {
    return this.records.remove(clientId, portalId);
  }

  /** Which login states are saved, and when; nothing is decrypted. */
  list(): Promise<LoginStateEntry[]> {
    return this.records.headers();
  }
}
