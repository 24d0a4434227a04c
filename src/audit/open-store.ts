import { existsSync, statSync } from 'node:fs';
import { openStore, type Store } from '../store';
import { PortalDeskError } from '../base/portal-desk-error';

export class StoreNotFoundError extends PortalDeskError {}

/**
 * Opens a run store that must already exist: reading commands (verify, replay, purge) never
 * create an empty database where the user mistyped a path.
 */
export function openExistingStore(path: string): Store {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new StoreNotFoundError(`No run store at ${path}. Give the database that holds the run with --db PATH (runs are recorded where "portal-desk run --db" wrote them).`);
  }
  return openStore(path);
}

/**
 * Whether a command's argument names an export file rather than a run id: a file that exists,
 * or anything ending in ".json" (run ids never do).
 */
export function looksLikeExportFile(arg: string): boolean {
  if (/\.json$/i.test(arg)) return true;
  try {
    return statSync(arg).isFile();
  } catch {
    return false;
  }
}
