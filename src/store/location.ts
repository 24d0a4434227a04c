import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

const DB_FILE_NAME = 'portal-desk.sqlite';

/**
 * Where the database lives: `$PORTAL_DESK_HOME`, else `$XDG_DATA_HOME/portal-desk`, else
 * `~/.local/share/portal-desk`, with the file `portal-desk.sqlite`. Creates the folder
 * (owner-only, 0700) when it is missing; an existing folder's mode is left as it is.
 */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const dir = dataFolder(env, home);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // A folder that cannot be made (read-only home, no permission) is reported when the store is opened, in one line.
  }
  return join(dir, DB_FILE_NAME);
}

export function dataFolder(env: NodeJS.ProcessEnv, home: string): string {
  if (env.PORTAL_DESK_HOME) return resolve(env.PORTAL_DESK_HOME);
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'portal-desk');
  return join(home, '.local', 'share', 'portal-desk');
}
