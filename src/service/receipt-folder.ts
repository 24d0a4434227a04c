import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeOwnerOnly } from '../base/owner-only-file';
import { PortalDeskError } from '../base/portal-desk-error';
import type { Store } from '../store';
import type { ReceiptKeeper } from '../agent/loop/run-options';
import { receiptExtension } from '../agent/portal/receipt';

/**
 * Receipts are kept next to the database in `receipts/` (the store has a place for PNG
 * screenshots only; the step log records the hash and size), named by their sha256. The folder
 * is 0700 and each receipt 0600, also when the folder or a receipt of the same hash was already
 * there with a wider mode: the file is written to a new owner-only file and renamed over the old.
 */
export function receiptFolder(folder: string): ReceiptKeeper {
  return {
    async keep(receipt) {
      const dir = join(folder, 'receipts');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const path = join(dir, `${receipt.sha256}.${receiptExtension(receipt.contentType)}`);
      writeOwnerOnly(path, receipt.bytes);
      return path;
    },
  };
}

/**
 * The folder on this desk whose `receipts/` keeps a run's receipts: the store's own desk folder;
 * for a SQLite store without one, the database file's folder. An office store (PostgreSQL) has no
 * file to sit beside: opened without a desk folder it is refused here, rather than receipts
 * landing in a folder named after the database's address under whatever the working folder is.
 */
export function receiptsHome(store: Pick<Store, 'localFolder' | 'kind' | 'path'>): string {
  if (store.localFolder) return store.localFolder;
  if (store.kind === 'postgres') throw new ReceiptsHomeError(`The office store ${store.path} was opened without a folder on this desk for receipts; open it with its desk folder (localFolder)`);
  return dirname(store.path);
}

class ReceiptsHomeError extends PortalDeskError {}
