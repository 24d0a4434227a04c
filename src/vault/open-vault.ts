import { lstatSync } from 'node:fs';
import { dataFolder, defaultVaultDir } from './data-folder';
import { chooseKeySource, type KeyPreference } from './key-choice';
import { keyId, rememberKey, type KeySource } from './key-source';
import { claimVault, readManifest } from './manifest';
import { ensurePrivateDir } from './private-files';
import { EncryptedLoginStateStore } from './login-state';
import { Vault } from './vault';
import { VaultError } from './vault-error';

interface OpenVaultOptions {
  env?: NodeJS.ProcessEnv;
  /** Default: `<data folder>/vault`. */
  vaultDir?: string;
  /** Default: `chooseKeySource` (key file or OS keyring). The Electron shell passes a `SealedKeyFileSource`. */
  keySource?: KeySource;
  prefer?: KeyPreference;
  now?: () => Date;
}

export interface OpenedVault {
  dir: string;
  keySource: KeySource;
  vault: Vault;
  loginStates: EncryptedLoginStateStore;
}

/** The vault and the login-state store of one folder, sharing one key (asked for once, on first use). */
export async function openVault(options: OpenVaultOptions = {}): Promise<OpenedVault> {
  const env = options.env ?? process.env;
  const dataDir = dataFolder(env);
  const dir = options.vaultDir ?? defaultVaultDir(dataDir);
  refuseUnlessFolder(dir);
  const keySource = rememberKey(options.keySource ?? (await chooseKeySource({ vaultDir: dir, dataDir, env, prefer: options.prefer })));
  return {
    dir,
    keySource,
    vault: new Vault({ dir, keySource, now: options.now }),
    loginStates: new EncryptedLoginStateStore({ dir, keySource, now: options.now }),
  };
}

/** The vault's path is a folder of its own, or nothing yet: never a file, a device or a link followed elsewhere. */
function refuseUnlessFolder(dir: string): void {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isDirectory()) return;
  const kind = stat.isSymbolicLink() ? 'a symbolic link' : stat.isFile() ? 'a file' : 'not a folder';
  throw new VaultError('not-a-folder', `The vault folder ${dir} is ${kind}; the vault keeps its records in a folder of its own there (move what is there away, or set PORTAL_DESK_HOME)`);
}

interface InitializedVault {
  dir: string;
  keySource: KeySource;
  keyId: string;
  /** False when the vault already had its key (nothing changed). */
  created: boolean;
}

/**
 * `portal-desk vault init`: gives a vault its key and writes its manifest, so from then on the
 * key is never replaced quietly. A vault that already has one keeps it; one whose key file is
 * missing is refused with where to restore it (chooseKeySource).
 */
export async function initVault(options: Omit<OpenVaultOptions, 'keySource'> & { now?: () => Date } = {}): Promise<InitializedVault> {
  const env = options.env ?? process.env;
  const dataDir = dataFolder(env);
  const dir = options.vaultDir ?? defaultVaultDir(dataDir);
  const before = await readManifest(dir);
  const keySource = await chooseKeySource({ vaultDir: dir, dataDir, env, prefer: options.prefer });
  const id = keyId(await keySource.key());
  if (!before) await ensurePrivateDir(dir);
  if (!before) await claimVault(dir, id, keySource, (options.now ?? (() => new Date()))());
  return { dir, keySource, keyId: id, created: !before };
}
