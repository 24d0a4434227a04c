import type Database from 'better-sqlite3';
import { sha256Hex } from '../base/canonical-json';
import { PortalDeskError } from '../base/portal-desk-error';
import { POSTGRES_TEXT } from './pg-migrations';
import type { DialectName } from './sql-driver';

/** One migration as one dialect runs it: its text is what `migrationChecksum` records. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A schema change, for every dialect: SQL written once where it is the same, each dialect's own where it differs. */
interface SchemaChange {
  version: number;
  name: string;
  /** As SQLite runs it, and PostgreSQL too unless `postgres` gives PostgreSQL's own text. */
  sql: string;
  postgres?: string;
}

/**
 * The schema's history, one list for both stores (a desk's SQLite file and an office's
 * PostgreSQL database sit at the same version numbers): numbered, forward-only. A change to the
 * schema is a NEW entry at the end of this list, its SQL written once when both dialects take the
 * same text (ALTER TABLE … ADD COLUMN, CREATE INDEX), else with PostgreSQL's own beside it; a
 * shipped entry is never edited, renumbered or removed (test/store checks each one's checksum, in
 * each dialect). Databases in the field sit at any version and must upgrade from it.
 *
 * A migration runs inside the upgrade transaction with foreign keys ON. A future migration that
 * rebuilds a table must follow SQLite's "12-step" procedure and re-create the triggers below.
 */
const MIGRATIONS: readonly SchemaChange[] = [
  {
    version: 1,
    name: 'runs, steps, screenshots, progress, run events',
    sql: `
      CREATE TABLE runs (
        id                 TEXT PRIMARY KEY,
        case_id            TEXT NOT NULL,
        client_id          TEXT NOT NULL,
        portal             TEXT NOT NULL,
        task               TEXT NOT NULL,
        planner            TEXT NOT NULL,
        model              TEXT,
        approve_mode       TEXT NOT NULL,
        status             TEXT NOT NULL,
        reason             TEXT,
        application_number TEXT,
        case_json          TEXT NOT NULL,
        layout             TEXT,
        started_at         TEXT NOT NULL,
        ended_at           TEXT,
        step_count         INTEGER NOT NULL DEFAULT 0,
        input_tokens       INTEGER NOT NULL DEFAULT 0,
        output_tokens      INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd           REAL NOT NULL DEFAULT 0,
        head_hash          TEXT,
        owner_pid          INTEGER,
        owner_token        TEXT,
        created_at         TEXT NOT NULL,
        updated_at         TEXT NOT NULL
      ) STRICT;
      CREATE INDEX runs_by_status ON runs (status, started_at);
      CREATE INDEX runs_by_start ON runs (started_at);
      CREATE INDEX runs_by_form ON runs (client_id, portal, task);

      -- The identity anchors the run's hash chain (its genesis hash); it never changes.
      CREATE TRIGGER runs_identity_fixed BEFORE UPDATE OF id, case_id, client_id, portal, task, started_at ON runs
      WHEN NEW.id IS NOT OLD.id OR NEW.case_id IS NOT OLD.case_id OR NEW.client_id IS NOT OLD.client_id
        OR NEW.portal IS NOT OLD.portal OR NEW.task IS NOT OLD.task OR NEW.started_at IS NOT OLD.started_at
      BEGIN SELECT RAISE(ABORT, 'a run''s identity never changes: it anchors the run''s hash chain'); END;

      -- Content-addressed PNGs shared between steps. png is NULL once purged (a tombstone: the
      -- hash stays, so the chain still verifies).
      CREATE TABLE screenshots (
        sha256        TEXT PRIMARY KEY,
        png           BLOB,
        bytes         INTEGER NOT NULL,
        first_seen_at TEXT NOT NULL
      ) STRICT;
      CREATE TRIGGER screenshots_keep_rows BEFORE DELETE ON screenshots
      BEGIN SELECT RAISE(ABORT, 'screenshots are never deleted; purging keeps a tombstone'); END;
      CREATE TRIGGER screenshots_fixed_bytes BEFORE UPDATE ON screenshots
      WHEN NEW.sha256 IS NOT OLD.sha256 OR (OLD.png IS NOT NULL AND NEW.png IS NOT NULL AND NEW.png IS NOT OLD.png)
      BEGIN SELECT RAISE(ABORT, 'a screenshot''s bytes never change: they are addressed by their hash'); END;

      -- One row per step: the canonical JSON the chain hashes, and the chain hash itself.
      CREATE TABLE steps (
        run_id           TEXT NOT NULL REFERENCES runs (id),
        idx              INTEGER NOT NULL,
        json             TEXT NOT NULL,
        observation_hash TEXT NOT NULL,
        screenshot_hash  TEXT REFERENCES screenshots (sha256),
        hash             TEXT NOT NULL,
        recorded_at      TEXT NOT NULL,
        PRIMARY KEY (run_id, idx)
      ) STRICT;
      CREATE INDEX steps_by_screenshot ON steps (screenshot_hash) WHERE screenshot_hash IS NOT NULL;
      CREATE TRIGGER steps_no_update BEFORE UPDATE ON steps
      BEGIN SELECT RAISE(ABORT, 'steps are append-only'); END;
      CREATE TRIGGER steps_no_delete BEFORE DELETE ON steps
      BEGIN SELECT RAISE(ABORT, 'steps are append-only'); END;

      -- Where one client's form stands on one portal (resume a draft, never submit twice).
      CREATE TABLE progress (
        client_id           TEXT NOT NULL,
        portal              TEXT NOT NULL,
        task                TEXT NOT NULL,
        case_id             TEXT NOT NULL,
        sections_done       TEXT NOT NULL,
        draft_id            TEXT,
        application_number  TEXT,
        submit_attempted_at TEXT,
        updated_at          TEXT NOT NULL,
        PRIMARY KEY (client_id, portal, task)
      ) STRICT;

      -- The audit trail of run-level events: created, status changes, resumed, interrupted, purged.
      CREATE TABLE run_events (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id      TEXT NOT NULL REFERENCES runs (id),
        at          TEXT NOT NULL,
        type        TEXT NOT NULL,
        from_status TEXT,
        to_status   TEXT,
        reason      TEXT,
        detail      TEXT,
        pid         INTEGER
      ) STRICT;
      CREATE INDEX run_events_by_run ON run_events (run_id, seq);
      CREATE TRIGGER run_events_no_update BEFORE UPDATE ON run_events
      BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
      CREATE TRIGGER run_events_no_delete BEFORE DELETE ON run_events
      BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
    `,
    postgres: POSTGRES_TEXT[1],
  },
  {
    version: 2,
    name: 'approvals view over step actions',
    // A view, not a table: approvals live once, inside the hash-chained step JSON, so the
    // queryable copy can never disagree with what the chain covers.
    sql: `
      CREATE VIEW approvals AS
      SELECT s.run_id                                    AS run_id,
             s.idx                                       AS step,
             CAST(a.key AS INTEGER)                      AS action_index,
             json_extract(a.value, '$.action.type')      AS action_type,
             json_extract(a.value, '$.element')          AS element,
             json_extract(a.value, '$.verdict.rule')     AS rule,
             json_extract(a.value, '$.approval.decision') AS decision,
             json_extract(a.value, '$.approval.by')      AS decided_by,
             json_extract(a.value, '$.approval.at')      AS decided_at,
             json_extract(a.value, '$.approval.note')    AS note
      FROM steps AS s, json_each(s.json, '$.actions') AS a
      WHERE json_type(a.value, '$.approval') = 'object';
    `,
    postgres: POSTGRES_TEXT[2],
  },
  {
    version: 3,
    name: 'retention: purge marks and model payloads',
    sql: `
      ALTER TABLE runs ADD COLUMN purged_at TEXT;
      ALTER TABLE screenshots ADD COLUMN purged_at TEXT;
      CREATE INDEX runs_by_end ON runs (ended_at) WHERE ended_at IS NOT NULL;

      -- Raw planner request/response bodies, for debugging. Outside the chain (steps carry
      -- their digests), so retention can drop them without breaking verification.
      CREATE TABLE model_payloads (
        run_id      TEXT NOT NULL REFERENCES runs (id),
        idx         INTEGER NOT NULL,
        request     TEXT NOT NULL,
        response    TEXT,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, idx)
      ) STRICT;
    `,
    postgres: POSTGRES_TEXT[3],
  },
  {
    version: 4,
    name: 'chain v2: one chained record log per run (steps, audit events, outcome, purges)',
    // Runs written before this migration keep chain_version 1 (steps only) and verify as such;
    // new runs get 2: a genesis record (identity, planner, approval mode, layout, model and the
    // sha256 of the case copy with its profile) and ONE ordered log of steps and run events,
    // each hashed onto the one before. record_count counts that log; pos places each row in it.
    sql: `
      ALTER TABLE runs ADD COLUMN chain_version INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE runs ADD COLUMN genesis_json TEXT;
      ALTER TABLE runs ADD COLUMN record_count INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE steps ADD COLUMN pos INTEGER;
      ALTER TABLE run_events ADD COLUMN pos INTEGER;
      ALTER TABLE run_events ADD COLUMN set_json TEXT;
      ALTER TABLE run_events ADD COLUMN hash TEXT;
      CREATE UNIQUE INDEX steps_by_pos ON steps (run_id, pos) WHERE pos IS NOT NULL;
      CREATE UNIQUE INDEX run_events_by_pos ON run_events (run_id, pos) WHERE pos IS NOT NULL;

      CREATE TRIGGER runs_genesis_fixed BEFORE UPDATE OF chain_version, genesis_json ON runs
      WHEN NEW.chain_version IS NOT OLD.chain_version OR NEW.genesis_json IS NOT OLD.genesis_json
      BEGIN SELECT RAISE(ABORT, 'a run''s chain genesis never changes'); END;
    `,
    postgres: POSTGRES_TEXT[4],
  },
  {
    version: 5,
    name: "a step's after and full-page pictures",
    // Both hashes are in the step's chained JSON (afterScreenshotHash, fullPageHash); these
    // columns are query copies, checked against the JSON by verify, and keep the bytes they name
    // referenced (retention purges them like the before picture). step_screenshots lists every
    // picture of every step, one row each, for purge and export.
    sql: `
      ALTER TABLE steps ADD COLUMN after_hash TEXT REFERENCES screenshots (sha256);
      ALTER TABLE steps ADD COLUMN full_page_hash TEXT REFERENCES screenshots (sha256);
      CREATE INDEX steps_by_after ON steps (after_hash) WHERE after_hash IS NOT NULL;
      CREATE INDEX steps_by_full_page ON steps (full_page_hash) WHERE full_page_hash IS NOT NULL;
      CREATE VIEW step_screenshots AS
      SELECT run_id, idx, 'before' AS kind, screenshot_hash AS sha256 FROM steps WHERE screenshot_hash IS NOT NULL
      UNION ALL SELECT run_id, idx, 'after' AS kind, after_hash AS sha256 FROM steps WHERE after_hash IS NOT NULL
      UNION ALL SELECT run_id, idx, 'full_page' AS kind, full_page_hash AS sha256 FROM steps WHERE full_page_hash IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: 'learned routes',
    // One route per portal and task (src/shared/route.ts): the JSON is the truth, checked against
    // its schema on every read; version, status and failures are query copies the reader checks
    // against it. A route holds field names and control identities, never case values.
    sql: `
      CREATE TABLE routes (
        portal       TEXT NOT NULL,
        task         TEXT NOT NULL,
        version      INTEGER NOT NULL CHECK (version >= 1),
        status       TEXT NOT NULL CHECK (status IN ('active', 'retired')),
        failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
        route_json   TEXT NOT NULL,
        learned_from TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL,
        PRIMARY KEY (portal, task)
      ) STRICT;
    `,
    postgres: POSTGRES_TEXT[6],
  },
  {
    version: 7,
    name: 'learned request map',
    // What the clerk taught the commit gate (src/shared/request-map.ts): per portal, one row per
    // method, host, path and shape (`entry_key`), its version bumped when taught again, with who
    // taught it and in which run. The JSON is the truth, checked against its schema on every read.
    sql: `
      CREATE TABLE request_map (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        portal      TEXT NOT NULL,
        entry_key   TEXT NOT NULL,
        version     INTEGER NOT NULL CHECK (version >= 1),
        entry_json  TEXT NOT NULL,
        taught_by   TEXT NOT NULL,
        run_id      TEXT,
        created_at  TEXT NOT NULL,
        UNIQUE (portal, entry_key)
      ) STRICT;
    `,
    postgres: POSTGRES_TEXT[7],
  },
  {
    version: 8,
    name: 'lease epochs (fencing)',
    // A desk's hold on a run (src/store/lease.ts): every write of the run checks it under the row's lock.
    sql: `ALTER TABLE runs ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;`,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

/** The migrations as `dialect` runs them, in order. */
export function migrationsFor(dialect: DialectName): Migration[] {
  return MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sql: dialect === 'postgres' ? (m.postgres ?? m.sql) : m.sql }));
}

/** A migration's checksum: recorded when applied, so an edited migration is visible afterwards. */
export function migrationChecksum(m: Migration): string {
  return sha256Hex(m.sql);
}

export class SchemaTooNewError extends PortalDeskError {}

/**
 * Brings the database up to `target` (default: the latest) in ONE immediate transaction:
 * it upgrades fully or not at all. Safe to call from two processes at once: the second waits
 * for the lock, then finds nothing left to do.
 */
export function migrate(db: Database.Database, target: number = LATEST_SCHEMA_VERSION): { from: number; to: number } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const upgrade = db.transaction(() => {
    const from = schemaVersion(db);
    if (from > LATEST_SCHEMA_VERSION) {
      throw new SchemaTooNewError(
        `The database is at schema version ${from}, newer than this Portal Desk understands (${LATEST_SCHEMA_VERSION}). ` +
          'Nothing was changed; update Portal Desk to open it.',
      );
    }
    const insert = db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
    for (const m of migrationsFor('sqlite')) {
      if (m.version <= from || m.version > target) continue;
      db.exec(m.sql);
      insert.run(m.version, m.name, migrationChecksum(m), new Date().toISOString());
    }
    return { from, to: Math.max(from, Math.min(target, LATEST_SCHEMA_VERSION)) };
  });
  return upgrade.immediate();
}

export function schemaVersion(db: Database.Database): number {
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}
