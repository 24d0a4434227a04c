import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations';

export interface DatabaseOptions {
  /** How long a write waits for another process's write lock before failing (default 5 s). */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating when missing) the SQLite file and brings its schema up to date.
 *
 * - A new file is created owner-only (0600); SQLite gives its -wal and -shm files the same mode.
 * - WAL journal: readers (the console, an audit export) never block the writing engine.
 * - synchronous=FULL: the WAL is fsynced at every commit. RunRecorder promises that a call is
 *   durable when it resolves. NORMAL would be just as safe against corruption and against the
 *   process dying (a commit in the WAL survives a SIGKILL), but a power cut or OS crash could
 *   lose the last commits — the last steps of a run, or a submitted application's number. At one
 *   commit per step (seconds apart) the extra fsync costs nothing that matters.
 * - foreign_keys=ON, busy_timeout for the CLI and the console sharing one file.
 * - auto_vacuum=INCREMENTAL (only settable on a new file), so purging screenshots can hand the
 *   space back to the file system.
 */
export function openDatabase(path: string, options: DatabaseOptions = {}): Database.Database {
  const inMemory = path === ':memory:';
  if (!inMemory && !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (!inMemory && mode !== 'wal') throw new Error(`SQLite would not switch to WAL mode (it reports "${String(mode)}")`);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (err) {
    db.close();
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`Could not open the Portal Desk database at ${path}: ${why}`, { cause: err });
  }
}
