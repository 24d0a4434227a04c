import { join } from 'node:path';
import { z } from 'zod';
import { type KeySource } from './key-source';
import { createPrivateFile, readPrivateFile } from './private-files';
import { VaultError } from './vault-error';

/**
 * `vault.json` in the vault folder: which key seals this vault. Written once, with the first
 * record. It keeps the key source sticky (a vault begun in the keyring does not quietly carry on
 * with a new key file when the keyring is locked) and stops records under two keys from mixing.
 */
const VaultManifest = z.strictObject({
  format: z.literal('portal-desk/vault'),
  version: z.literal(1),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  keySource: z.strictObject({ kind: z.string().min(1).max(40), description: z.string().max(500) }),
  createdAt: z.string(),
});
type VaultManifest = z.infer<typeof VaultManifest>;

function manifestPath(vaultDir: string): string {
  return join(vaultDir, 'vault.json');
}

export async function readManifest(vaultDir: string): Promise<VaultManifest | null> {
  const path = manifestPath(vaultDir);
  const text = await readPrivateFile(path);
  if (text === null) return null;
  try {
    return VaultManifest.parse(JSON.parse(text));
  } catch {
    throw new VaultError('damaged', `The vault manifest ${path} is damaged. If the vault's key is unchanged, delete the file and Portal Desk writes it again.`);
  }
}

/** Writes the manifest if there is none; refuses when the vault belongs to another key. */
export async function claimVault(vaultDir: string, id: string, source: KeySource, now: Date): Promise<void> {
  let manifest = await readManifest(vaultDir);
  if (!manifest) {
    const fresh: VaultManifest = { format: 'portal-desk/vault', version: 1, keyId: id, keySource: { kind: source.kind, description: source.description }, createdAt: now.toISOString() };
    if (await createPrivateFile(manifestPath(vaultDir), `${JSON.stringify(fresh, null, 2)}\n`)) return;
    manifest = await readManifest(vaultDir); // another process claimed it a moment ago
  }
  if (manifest && manifest.keyId !== id) {
    throw new VaultError(
      'wrong-key',
      `The vault at ${vaultDir} is sealed with key ${manifest.keyId} from the ${manifest.keySource.description}, but the key at hand (${source.description}) is ${id}. ` +
        'Nothing was saved, so the vault does not end up under two keys. Use the key the vault was made with.',
    );
  }
}
