import { z } from 'zod';
import { type CredentialSource, type Credentials } from '../shared/credentials';
import { entryName } from './ids';
import { type KeySource } from './key-source';
import { SealedRecords } from './sealed-records';
import { VaultError } from './vault-error';

/** What `list` shows of a login: never the password. */
interface VaultEntry {
  clientId: string;
  portalId: string;
  username: string;
  updatedAt: string;
}

interface VaultOptions {
  /** The vault folder (`<data folder>/vault` by default, see `openVault`). */
  dir: string;
  keySource: KeySource;
  now?: () => Date;
}

const MAX_USERNAME = 200;
const MAX_PASSWORD = 1024;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The plaintext of a credentials record. The username is sealed too: on many portals it is a tax or ID number. */
const SealedCredentials = z.strictObject({ username: z.string(), password: z.string() });

/**
 * Portal logins per client and portal, each sealed with AES-256-GCM in its own 0600 file. The
 * engine reads them through `CredentialSource.get`; the clerk manages them with `set`, `list`
 * and `remove` (the `portal-desk vault` command).
 */
export class Vault implements CredentialSource {
  private readonly records: SealedRecords;

  constructor(options: VaultOptions) {
    this.records = new SealedRecords(options.dir, 'credentials', options.keySource, options.now);
  }

  async get(clientId: string, portalId: string): Promise<Credentials | null> {
    const plaintext = await this.records.read(clientId, portalId);
    if (!plaintext) return null;
    const parsed = SealedCredentials.safeParse(safeJson(plaintext));
    if (!parsed.success) throw new VaultError('damaged', `The saved login for ${entryName(clientId, portalId)} opened but is not a login. Save it again.`);
    return { username: parsed.data.username, password: parsed.data.password };
  }

  async set(clientId: string, portalId: string, credentials: Credentials): Promise<void> {
    const { username, password } = credentials;
    const name = entryName(clientId, portalId);
    if (typeof username !== 'string' || !username || username.length > MAX_USERNAME || CONTROL.test(username)) {
      throw new VaultError('bad-input', `The username for ${name} must be 1 to ${MAX_USERNAME} characters without line breaks or control characters; nothing was saved.`);
    }
    // The message never quotes the password, only what is wrong with it.
    if (typeof password !== 'string' || !password) throw new VaultError('bad-input', `The password for ${name} is empty; nothing was saved.`);
    if (password.length > MAX_PASSWORD) throw new VaultError('bad-input', `The password for ${name} is longer than ${MAX_PASSWORD} characters; nothing was saved.`);
    if (CONTROL.test(password)) throw new VaultError('bad-input', `The password for ${name} contains a line break or control character; nothing was saved.`);
    await this.records.write(clientId, portalId, Buffer.from(JSON.stringify({ username, password }), 'utf8'));
  }

  /** Every login with its username and date, sorted by client and portal. Opens each record; never returns a password. */
  async list(): Promise<VaultEntry[]> {
    const out: VaultEntry[] = [];
    for (const header of await this.records.headers()) {
      const credentials = await this.get(header.clientId, header.portalId);
      if (credentials) out.push({ clientId: header.clientId, portalId: header.portalId, username: credentials.username, updatedAt: header.updatedAt });
    }
    return out;
  }

  /** Deletes a login; false when there was none. */
  remove(clientId: string, portalId: string): Promise<boolean> {
    return this.records.remove(clientId, portalId);
  }
}

function safeJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
