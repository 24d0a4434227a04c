import { dataFolder, defaultKeyFile } from './data-folder';
import { KeyFileSource } from './key-file';
import { type KeySource } from './key-source';
import { findOnPath, SecretToolKeySource } from './keyring';
import { readManifest } from './manifest';
import { VaultError } from './vault-error';

export type KeyPreference = 'auto' | 'file' | 'keyring';

export interface KeyChoiceOptions {
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
 * 2. A new vault follows `prefer`. "auto" takes an existing key file; else the OS keyring when
 *    `secret-tool` is on PATH and answers; else a new key file.
 */
export async function chooseKeySource(options: KeyChoiceOptions): Promise<KeySource> {
  const env = options.env ?? process.env;
  const prefer = options.prefer ?? preference(env);
  const keyFile = new KeyFileSource(defaultKeyFile(options.dataDir ?? dataFolder(env)));
  const manifest = await readManifest(options.vaultDir);

  if (manifest) {
    const kind = manifest.keySource.kind;
    if (prefer !== 'auto' && prefer !== kind) {
      throw new VaultError('wrong-key', `The vault at ${options.vaultDir} is sealed with the ${manifest.keySource.description}; PORTAL_DESK_VAULT_KEY=${prefer} applies to a new vault only. Unset it.`);
    }
    if (kind === 'file') return keyFile;
    if (kind === 'keyring') return keyring(env, options.vaultDir);
    throw new VaultError('wrong-key', `The vault at ${options.vaultDir} is sealed with the ${manifest.keySource.description}, which only the Portal Desk app can open.`);
  }

  if (prefer === 'file') return keyFile;
  if (prefer === 'keyring') return keyring(env, options.vaultDir);
  if (await keyFile.exists()) return keyFile;
  const tool = await findOnPath('secret-tool', env);
  if (tool) {
    const source = new SecretToolKeySource(tool, env);
    const probe = await source.lookup().catch(() => ({ unreachable: 'unusable entry' }));
    if (!('unreachable' in probe)) return source;
  }
  return keyFile;
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
