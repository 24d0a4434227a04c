import { statSync } from 'node:fs';
import { fileKind } from '../agent/case/load-json';
import { UsageError } from './cli-error';

/**
 * Refuses a path that exists but is not a regular file (a FIFO, a device, a folder) before it is
 * read, so a command never blocks on it. A missing path is left to the reader to report.
 */
export function refuseUnlessRegularFile(path: string, what: string): void {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return;
  }
  if (stat.isFile()) return;
  throw new UsageError(`${path.slice(0, 300)} is ${fileKind(stat)}; a ${what} is a regular file`);
}
