import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { dataFolder, defaultKeyFile } from './data-folder';
import { KeyFileSource } from './key-file';
import { type KeySource } from './key-source';
import { findOnPath, SecretToolKeySource } from './keyring';
import { readManifest } from './manifest';
import { VaultError } from './vault-error';

export type KeyPreference = 'auto' | 'file' | 'keyring';

interface KeyChoiceOptions {
  vaultDir: string;
  /** The Portal Desk data folder, home of the key file. Default: from `env` (see `dataFolder`). */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Default: `$PORTAL_DESK_VAULT_KEY`, else "auto". Only a new vault follows it. */
  prefer?: KeyPreference;
}

/**
 * Which key opens this vault, for the command line (the Electron shell brings its own
 * `SealedKeyFileSource`):
 * 1. A vault that exists keeps the key it was made with, as written in its manifest. If that key
 *    cannot be reached (keyring locked, secret-tool gone) the answer is an error, never a new key.
 *    A missing key file is refused the same way, naming where the key must be restored.
 * 2. A new vault follows `prefer`. "auto" takes an existing key file; else the OS keyring when
 *    `secret-tool` is on PATH and answers; else a new key file (made on first use, or by
 *    "portal-desk vault init"). A folder that holds sealed records but no manifest (it was
 *    deleted) is not new: its key file must be there.
 */
export async function chooseKeySource(options: KeyChoiceOptions): Promise<KeySource> {
  const env = options.env ?? process.env;
  const prefer = options.prefer ?? preference(env);
  const keyPath = defaultKeyFile(options.dataDir ?? dataFolder(env));
  const keyFile = new KeyFileSource(keyPath);
  const manifest = await readManifest(options.vaultDir);

  if (manifest) {
    const kind = manifest.keySource.kind;
    if (prefer !== 'auto' && prefer !== kind) {
      throw new VaultError('wrong-key', `The vault at ${options.vaultDir} is sealed with the ${manifest.keySource.description}; PORTAL_DESK_VAULT_KEY=${prefer} applies to a new vault only. Unset it.`);
    }
    if (kind === 'file') return existingKeyFile(keyPath, options.vaultDir, `key ${manifest.keyId}`);
    if (kind === 'keyring') return keyring(env, options.vaultDir);
    throw new VaultError('wrong-key', `The vault at ${options.vaultDir} is sealed with the ${manifest.keySource.description}, which only the Portal Desk app can open.`);
  }

  const sealed = await holdsSealedRecords(options.vaultDir);
  if (prefer === 'file') return sealed ? existingKeyFile(keyPath, options.vaultDir, 'its key') : keyFile;
  if (prefer === 'keyring') return keyring(env, options.vaultDir);
  if (await keyFile.exists()) return keyFile;
  const tool = await findOnPath('secret-tool', env);
  if (tool) {
    const source = new SecretToolKeySource(tool, env);
    const probe = await source.lookup().catch(() => ({ unreachable: 'unusable entry' }));
    if (!('unreachable' in probe)) return source;
  }
  return sealed ? existingKeyFile(keyPath, options.vaultDir, 'its key') : keyFile;
}

/** The key file of a vault that already has a key: refused up front, in one line, when it is not there. */
async function existingKeyFile(keyPath: string, vaultDir: string, which: string): Promise<KeySource> {
  const missing =
    `The vault at ${vaultDir} holds logins sealed with ${which} from the key file ${keyPath}, but that file is missing. Nothing was created or changed. ` +
    `Restore ${keyPath} from your backup (32 bytes, owner-only: chmod 600); if the key is lost, move ${vaultDir} aside and run "portal-desk vault init" to start an empty vault.`;
  const source = new KeyFileSource(keyPath, { missing });
  if (!(await source.exists())) throw new VaultError('key-missing', missing);
  return source;
}

/** Whether the folder holds any sealed record (logins or login states). */
async function holdsSealedRecords(vaultDir: string): Promise<boolean> {
  for (const kind of await readdir(vaultDir).catch(() => [] as string[])) {
    const names = await readdir(join(vaultDir, kind)).catch(() => [] as string[]);
    if (names.some((n) => /^[0-9a-f]{32}\.json$/.test(n))) return true;
  }
  return false;
}

async function keyring(env: NodeJS.ProcessEnv, vaultDir: string): Promise<KeySource> {
  const tool = await findOnPath('secret-tool', env);
  if (!tool) {
    throw new VaultError('keyring', `The vault at ${vaultDir} uses the OS keyring, but secret-tool is not on PATH. Install it (Debian: apt-get install libsecret-tools) and try again.`);
  }
  return new SecretToolKeySource(tool, env);
}

function preference(env: NodeJS.ProcessEnv): KeyPreference {
  const value = env.PORTAL_DESK_VAULT_KEY;
  if (!value) return 'auto';
  if (value === 'auto' || value === 'file' || value === 'keyring') return value;
  throw new VaultError('bad-input', `PORTAL_DESK_VAULT_KEY must be auto, file or keyring (got "${value.slice(0, 40)}").`);
}
