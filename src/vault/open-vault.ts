import { dataFolder, defaultVaultDir } from './data-folder';
import { chooseKeySource, type KeyPreference } from './key-choice';
import { rememberKey, type KeySource } from './key-source';
import { EncryptedLoginStateStore } from './login-state';
import { Vault } from './vault';

export interface OpenVaultOptions {
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
  const keySource = rememberKey(options.keySource ?? (await chooseKeySource({ vaultDir: dir, dataDir, env, prefer: options.prefer })));
  return {
    dir,
    keySource,
    vault: new Vault({ dir, keySource, now: options.now }),
    loginStates: new EncryptedLoginStateStore({ dir, keySource, now: options.now }),
  };
}
