import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The Portal Desk data folder: `$PORTAL_DESK_HOME`, else `$XDG_DATA_HOME/portal-desk`, else
 * `~/.local/share/portal-desk`. Empty variables count as unset.
 */
export function dataFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PORTAL_DESK_HOME) return env.PORTAL_DESK_HOME;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'portal-desk');
  return join(env.HOME || homedir(), '.local', 'share', 'portal-desk');
}

/** Where the sealed records live unless told otherwise. */
export function defaultVaultDir(dataDir: string): string {
  return join(dataDir, 'vault');
}

/**
 * Where the key file lives: beside the vault folder, not inside it, so a copy of the vault
 * folder (a backup, a support bundle) does not carry its key.
 */
export function defaultKeyFile(dataDir: string): string {
  return join(dataDir, 'vault.key');
}
