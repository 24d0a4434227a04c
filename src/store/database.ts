import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION, migrate, SchemaTooNewError, schemaVersion } from './migrations';
import { PortalDeskError } from '../base/portal-desk-error';

export interface DatabaseOptions {
  /** How long a write waits for another process's write lock before failing (default 5 s). */
  busyTimeoutMs?: number;
  /**
   * Open an existing store without ever writing to it (verify, replay, exports): no file is
   * created, no schema is upgraded, and a store on read-only media (an archive, a mounted copy)
   * opens too.
   */
  readOnly?: boolean;
}

/** A read-only store is read into memory when it cannot be opened in place; past this size it is refused. */
const MAX_IN_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** The store could not be opened: nothing was created or changed. `problem` is one line. */
export class StoreOpenError extends PortalDeskError {
  constructor(
    readonly path: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`Could not open the Portal Desk database at ${path}: ${problem}`, options);
  }
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
 *
 * With `readOnly`, see `openReadOnly`. Every failure is a StoreOpenError.
 */
export function openDatabase(path: string, options: DatabaseOptions = {}): Database.Database {
  if (options.readOnly) return openReadOnly(path, options);
  const inMemory = path === ':memory:';
  let db: Database.Database | undefined;
  try {
    if (!inMemory && existsSync(path) && statSync(path).isDirectory()) throw new StoreOpenError(path, 'it is a folder; give the path of the database file (…/portal-desk.sqlite)');
    if (!inMemory && !existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      try {
        closeSync(openSync(path, 'wx', 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    // Another program's SQLite file is refused before anything could change it (no WAL switch, no tables).
    if (!inMemory) refuseForeign(path);
    db = new Database(path);
    db.pragma(`busy_timeout = ${busyTimeout(options)}`);
    if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (!inMemory && mode !== 'wal') throw new Error(`SQLite would not switch to WAL mode (it reports "${String(mode)}")`);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    if (db.pragma('application_id', { simple: true }) !== APPLICATION_ID) db.pragma(`application_id = ${APPLICATION_ID}`);
    return db;
  } catch (err) {
    db?.close();
    throw asOpenError(path, err, 'write');
  }
}

/**
 * Opens an existing store for reading only. In place when SQLite can (a read-only handle; the
 * store must be at this version's schema). Otherwise — a WAL store on read-only media, where
 * SQLite cannot make the shared-memory file it needs beside it, or a store at an older schema
 * that must not be upgraded on disk — a copy is read into memory and upgraded there if need be.
 * Nothing on disk is ever written.
 */
function openReadOnly(path: string, options: DatabaseOptions): Database.Database {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    throw asOpenError(path, err, 'read');
  }
  if (stat.isDirectory()) throw new StoreOpenError(path, 'it is a folder; give the path of the database file (…/portal-desk.sqlite)');
  if (!stat.isFile()) throw new StoreOpenError(path, 'it is not a regular file');
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${busyTimeout(options)}`);
    const version = storeVersion(path, db);
    if (version === LATEST_SCHEMA_VERSION) return db;
    db.close();
  } catch (err) {
    db?.close();
    if (!cannotOpenInPlace(err)) throw asOpenError(path, err, 'read');
  }
  return memoryCopy(path, stat.size);
}

function memoryCopy(path: string, size: number): Database.Database {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new StoreOpenError(path, `its last writes are still in ${wal} and cannot be read where it lies (read-only); copy the database and its -wal file to a writable folder and open the copy`);
  }
  if (size > MAX_IN_MEMORY_BYTES) throw new StoreOpenError(path, 'it cannot be opened where it lies (read-only media) and is too large to read into memory; copy it to a writable folder and open the copy');
  let db: Database.Database | undefined;
  try {
    const bytes = readFileSync(path);
    // Bytes 18 and 19 say "WAL" (2); with no -wal file the main file holds everything, and the
    // legacy value (1) lets SQLite read the copy without a shared-memory file.
    if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
    db = new Database(bytes);
    const version = storeVersion(path, db);
    if (version < LATEST_SCHEMA_VERSION) migrate(db);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db?.close();
    throw asOpenError(path, err, 'read');
  }
}

/** SQLite's application id in a Portal Desk store's header ("PDSK"): set on every store it writes. */
const APPLICATION_ID = 0x5044_534b;

/** The tables a Portal Desk store may hold (the latest schema's, built once in memory). */
let ownTables: ReadonlySet<string> | undefined;
function tablesOfAStore(): ReadonlySet<string> {
  if (!ownTables) {
    const fresh = new Database(':memory:');
    try {
      migrate(fresh);
      ownTables = new Set((fresh.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).concat(['sqlite_sequence', 'sqlite_stat1']));
    } finally {
      fresh.close();
    }
  }
  return ownTables;
}

/**
 * Refuses, reading only, an existing non-empty SQLite file that is not a Portal Desk store: another
 * program's application id or user_version, no schema_migrations table, or tables no Portal Desk
 * schema has. The file is left byte for byte as it was (opened read-only, nothing written).
 */
function refuseForeign(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  let probe: Database.Database | undefined;
  let problem: string | undefined;
  try {
    probe = new Database(path, { readonly: true, fileMustExist: true });
    const applicationId = probe.pragma('application_id', { simple: true }) as number;
    const userVersion = probe.pragma('user_version', { simple: true }) as number;
    const tables = probe.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const foreign = tables.filter((t) => !tablesOfAStore().has(t));
    if (tables.length === 0 && applicationId === 0 && userVersion === 0) return;
    if (applicationId !== 0 && applicationId !== APPLICATION_ID) problem = `it is not a Portal Desk store (another program's SQLite file: application id ${applicationId}); nothing was changed; check --db`;
    else if (userVersion !== 0) problem = `it is not a Portal Desk store (another program's SQLite file: user_version ${userVersion}); nothing was changed; check --db`;
    else if (!tables.includes('schema_migrations')) problem = 'it is not a Portal Desk store (an SQLite file without its schema); nothing was changed; check --db';
    else if (foreign.length > 0) problem = `it is not a Portal Desk store (it holds tables Portal Desk does not have: ${foreign.slice(0, 3).join(', ')}); nothing was changed; check --db`;
  } catch (err) {
    // Not SQLite at all, or unreadable: the normal open says what is wrong.
    if (err instanceof StoreOpenError) throw err;
  } finally {
    probe?.close();
  }
  if (problem) throw new StoreOpenError(path, problem);
}

/** The store's schema version; refuses a file that is not a Portal Desk store or is newer than this version. */
function storeVersion(path: string, db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) throw new StoreOpenError(path, 'it is not a Portal Desk store (an SQLite file without its schema); check --db');
  const version = schemaVersion(db);
  if (version > LATEST_SCHEMA_VERSION) {
    throw new SchemaTooNewError(
      `The database is at schema version ${version}, newer than this Portal Desk understands (${LATEST_SCHEMA_VERSION}). Nothing was changed; update Portal Desk to open it.`,
    );
  }
  return version;
}

function cannotOpenInPlace(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_READONLY_CANTINIT' || code === 'SQLITE_READONLY_RECOVERY';
}

function busyTimeout(options: DatabaseOptions): number {
  return Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
}

/** One line a person can act on, whatever failed underneath. */
function asOpenError(path: string, err: unknown, intent: 'read' | 'write'): StoreOpenError {
  if (err instanceof StoreOpenError) return err;
  if (err instanceof SchemaTooNewError) return new StoreOpenError(path, err.message, { cause: err });
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  const problem =
    code === 'ENOENT'
      ? intent === 'read'
        ? 'there is no such file'
        : 'the file cannot be created there (no such folder, or a read-only file system)'
      : code === 'EROFS' || ((code === 'SQLITE_CANTOPEN' || code?.startsWith('SQLITE_READONLY')) && intent === 'write')
        ? 'it is on a read-only file system or cannot be written; "run", "resume", "batch" and "purge" need a writable store ("verify" and "replay" read one where it lies)'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'SQLITE_NOTADB'
            ? 'file is not a database (the file is damaged, or not a Portal Desk store); check --db'
            : code === 'SQLITE_CORRUPT' || code?.startsWith('SQLITE_CORRUPT')
              ? 'the database file is damaged (SQLite reports it corrupt); restore it from a backup'
              : message.length > 200
                ? `${message.slice(0, 200)}…`
                : message;
  return new StoreOpenError(path, problem, { cause: err });
}
