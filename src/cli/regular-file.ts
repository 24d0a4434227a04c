import { closeSync } from 'node:fs';
import { NotRegularFileError, openRegularFile } from '../base/regular-file';
import { UsageError } from './cli-error';

/**
 * Refuses a path that exists but is not a regular file (a FIFO, a device, a folder, a symbolic
 * link) before it is read, so a command never blocks on it: the path is opened without following
 * a link and without blocking, and what was opened is checked. A missing path is left to the
 * reader to report.
 */
export function refuseUnlessRegularFile(path: string, what: string): void {
  try {
    closeSync(openRegularFile(path, 'read', what));
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new UsageError(err.message);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
}
