import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * Where a suite's throw-away files go (its store, its downloads folder): memory-backed /dev/shm
 * where there is one, the temp folder otherwise. The store syncs every step, which on a shared CI
 * disk costs seconds per run and proves nothing a suite measures: a SIGKILL leaves a tmpfs file
 * exactly as it leaves one on disk (what was written is in the page cache either way); losing
 * power is the crash test's business (test/store/crash.test.ts), not a suite's.
 */
export function scratchFolder(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
