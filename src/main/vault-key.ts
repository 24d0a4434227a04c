import { join } from 'node:path';
import { dataFolder, defaultVaultDir, SealedKeyFileSource, type KeySealer, type KeySource } from '../vault';
import { readManifest } from '../vault/manifest';
import { errorMessage } from '../base/error-text';

/** Where the app keeps the vault key sealed by safeStorage: beside the vault, like the CLI's key file. */
export function sealedKeyPath(dataDir: string): string {
  return join(dataDir, 'vault.sealed-key');
}

interface AppKeyOptions {
  env: Record<string, string | undefined>;
  /** Builds the safeStorage sealer; throws (with what to do) when safeStorage would not protect the key. */
  sealer: () => KeySealer;
  vaultDir?: string;
  report: (line: string) => void;
}

/**
 * The vault key the app uses:
 * - a vault made by the command line (its manifest names a key file or the OS keyring) keeps
 *   that key: undefined is returned and the console service chooses it the CLI's way;
 * - otherwise the key is sealed with Electron's safeStorage (`SealedKeyFileSource`);
 * - when safeStorage is refused (Linux `basic_text`, no keyring) and no vault exists yet, the
 *   refusal is reported and the CLI's choice applies (a 0600 key file, or the keyring through
 *   secret-tool);
 * - when the vault was sealed by the app and safeStorage is now refused, the vault cannot be
 *   opened: a key source that refuses with the reason is returned, so every vault action says why.
 */
export async function appKeySource(options: AppKeyOptions): Promise<KeySource | undefined> {
  const env = options.env as NodeJS.ProcessEnv;
  const dataDir = dataFolder(env);
  const vaultDir = options.vaultDir ?? defaultVaultDir(dataDir);
  const manifest = await readManifest(vaultDir);
  if (manifest && manifest.keySource.kind !== 'sealed') return undefined;
  let sealer: KeySealer;
  try {
    sealer = options.sealer();
  } catch (err) {
    const reason = errorMessage(err);
    if (!manifest) {
      options.report(`${reason} The vault will use the command line's key instead (a 0600 key file or the OS keyring).`);
      return undefined;
    }
    return refusingSource(`The vault at ${vaultDir} was sealed by the Portal Desk app, and its key cannot be opened now: ${reason}`);
  }
  return new SealedKeyFileSource(sealedKeyPath(dataDir), sealer);
}

function refusingSource(reason: string): KeySource {
  return {
    kind: 'sealed',
    description: 'sealed key file (safeStorage unavailable)',
    key: () => Promise.reject(new Error(reason)),
  };
}
