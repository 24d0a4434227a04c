import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../base/canonical-json';
import { CIPHER, openBytes, sealBytes } from './cipher';
import { checkIds, entryName } from './ids';
import { keyId, type KeySource } from './key-source';
import { claimVault } from './manifest';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from './private-files';
import { VaultError } from './vault-error';

type RecordKind = 'credentials' | 'login-state';

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);

/**
 * One sealed record, one file. Everything but `iv`, `tag` and `ciphertext` is the associated
 * data: readable, and bound to the ciphertext by the GCM tag, so a record moved to another
 * client's or portal's file, or given another kind or date, no longer opens.
 */
const SealedRecordFile = z.strictObject({
  format: z.literal('portal-desk/sealed-record'),
  version: z.literal(1),
  kind: z.enum(['credentials', 'login-state']),
  clientId: z.string(),
  portalId: z.string(),
  updatedAt: z.string(),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  cipher: z.literal(CIPHER),
  iv: base64,
  tag: base64,
  ciphertext: base64,
});
type SealedRecordFile = z.infer<typeof SealedRecordFile>;

interface RecordHeader {
  clientId: string;
  portalId: string;
  updatedAt: string;
}

const WHAT: Record<RecordKind, { thing: string; fix: (client: string, portal: string) => string }> = {
  credentials: {
    thing: 'saved login',
    fix: (c, p) => `Remove it (portal-desk vault remove --client ${c} --portal ${p}) and save the login again.`,
  },
  'login-state': {
    thing: 'saved login state',
    fix: (c, p) => `Remove it (portal-desk vault remove --client ${c} --portal ${p}); the next run signs in afresh.`,
  },
};

const FILE_NAME = /^[0-9a-f]{32}\.json$/;

/**
 * The sealed files of one kind in a vault folder: `<vaultDir>/<kind>/<name>.json`, mode 0600,
 * written atomically, where the name is a hash of client and portal id (no case clashes on
 * macOS, no names to escape). Plaintext is whatever the caller hands in.
 */
export class SealedRecords {
  readonly dir: string;

  constructor(
    readonly vaultDir: string,
    readonly kind: RecordKind,
    private readonly keySource: KeySource,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.dir = join(vaultDir, kind);
  }

  fileOf(clientId: string, portalId: string): string {
    return join(this.dir, `${sha256Hex(`${clientId}\n${portalId}`).slice(0, 32)}.json`);
  }

  /** The plaintext, null when nothing is stored; throws VaultError when the record cannot be trusted. */
  async read(clientId: string, portalId: string): Promise<Buffer | null> {
    checkIds(clientId, portalId);
    const file = this.fileOf(clientId, portalId);
    const record = await this.parse(file);
    if (!record) return null;
    const name = `${WHAT[this.kind].thing} for ${entryName(clientId, portalId)}`;
    if (record.kind !== this.kind || record.clientId !== clientId || record.portalId !== portalId) {
      throw new VaultError(
        'misplaced',
        `The ${name} (${file}) holds the ${record.kind} record of ${entryName(record.clientId, record.portalId)}: files were moved or copied. Nothing was read. ${WHAT[this.kind].fix(clientId, portalId)}`,
      );
    }
    const key = await this.keySource.key();
    const id = keyId(key);
    if (record.keyId !== id) {
      throw new VaultError('wrong-key', `The ${name} was sealed with key ${record.keyId}, but the key at hand (${this.keySource.description}) is ${id}. Nothing was read. Use the key the vault was made with.`);
    }
    const plaintext = openBytes(key, associatedData(record), record);
    if (!plaintext) {
      throw new VaultError('tampered', `The ${name} failed its integrity check: its file (${file}) was changed or damaged after it was written. Nothing was read. ${WHAT[this.kind].fix(clientId, portalId)}`);
    }
    return plaintext;
  }

  async write(clientId: string, portalId: string, plaintext: Buffer): Promise<void> {
    checkIds(clientId, portalId);
    const key = await this.keySource.key();
    const id = keyId(key);
    await ensurePrivateDir(this.dir);
    await claimVault(this.vaultDir, id, this.keySource, this.now());
    const header = {
      format: 'portal-desk/sealed-record',
      version: 1,
      kind: this.kind,
      clientId,
      portalId,
      updatedAt: this.now().toISOString(),
      keyId: id,
      cipher: CIPHER,
    } as const;
    const record: SealedRecordFile = { ...header, ...sealBytes(key, associatedData(header), plaintext) };
    await writePrivateFile(this.fileOf(clientId, portalId), `${JSON.stringify(record, null, 2)}\n`);
  }

  /** Deletes the record; false when there was none. */
  async remove(clientId: string, portalId: string): Promise<boolean> {
    checkIds(clientId, portalId);
    try {
      await unlink(this.fileOf(clientId, portalId));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** The readable part of every record, sorted by client then portal. Nothing is decrypted. */
  async headers(): Promise<RecordHeader[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: RecordHeader[] = [];
    for (const name of names.filter((n) => FILE_NAME.test(n)).sort()) {
      const record = await this.parse(join(this.dir, name));
      if (record) out.push({ clientId: record.clientId, portalId: record.portalId, updatedAt: record.updatedAt });
    }
    return out.sort((a, b) => a.clientId.localeCompare(b.clientId) || a.portalId.localeCompare(b.portalId));
  }

  private async parse(file: string): Promise<SealedRecordFile | null> {
    const text = await readPrivateFile(file);
    if (text === null) return null;
    try {
      return SealedRecordFile.parse(JSON.parse(text));
    } catch {
      throw new VaultError('damaged', `The vault file ${file} is damaged (not a sealed ${this.kind} record). Nothing was read. Delete the file and save that entry again.`);
    }
  }
}

/** The bytes GCM authenticates beside the ciphertext: every header field, canonical JSON. */
function associatedData(record: Omit<SealedRecordFile, 'iv' | 'tag' | 'ciphertext'>): string {
  const { format, version, kind, clientId, portalId, updatedAt, keyId: id, cipher } = record;
  return canonicalJson({ format, version, kind, clientId, portalId, updatedAt, keyId: id, cipher });
}
