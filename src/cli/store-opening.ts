import { existsSync } from 'node:fs';
import { officeDatabaseUrl, openConfiguredStore, openStore, StoreOpenError, type Store } from '../store';
import { UsageError } from './cli-error';

/**
 * The run store a command named with --db (or the default), opened the way the command needs:
 * `write` for commands that record (run, resume, batch, purge), `read` for those that only look
 * (verify, replay and its exports), which never create, upgrade or write the file and also open
 * a store on read-only media. A store that cannot be used is a one-line UsageError (exit 2):
 * missing, a folder, damaged, from a newer Portal Desk, or not writable when it must be.
 */
export function openCommandStore(path: string, mode: 'read' | 'write', options: { mustExist?: boolean } = {}): Store {
  if ((mode === 'read' || options.mustExist) && !existsSync(path)) {
    throw new UsageError(`No run store at ${path}. Give the database that holds the run with --db PATH (runs are recorded where "portal-desk run --db" wrote them).`);
  }
  try {
    return openStore(path, { readOnly: mode === 'read' });
  } catch (err) {
    if (err instanceof StoreOpenError) throw new UsageError(`${err.message}. Nothing was changed.`);
    throw err;
  }
}

/**
 * The store a command uses: the office's PostgreSQL store when PORTAL_DESK_DATABASE_URL names
 * one (every desk's runs in one place; `--db` is not used then), otherwise the SQLite file as
 * `openCommandStore` opens it. Failures are the same one-line UsageError (exit 2).
 */
export async function openDeskStore(path: string, mode: 'read' | 'write', options: { mustExist?: boolean } = {}): Promise<Store> {
  if (officeDatabaseUrl() === null) return openCommandStore(path, mode, options);
  try {
    return await openConfiguredStore({ dbPath: path, readOnly: mode === 'read' });
  } catch (err) {
    if (err instanceof StoreOpenError) throw new UsageError(`${err.message}. Nothing was changed.`);
    throw err;
  }
}
