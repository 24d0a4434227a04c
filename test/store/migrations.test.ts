import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digest } from '../../src/base/canonical-json';
import { openStore, LATEST_SCHEMA_VERSION } from '../../src/store';
import { genesisHash, stepHash } from '../../src/store/chain';
import { openDatabase } from '../../src/store/database';
import { defaultDbPath } from '../../src/store/location';
import { migrate, migrationChecksum, migrationsFor } from '../../src/store/migrations';
import { skipPostgres, storeTarget, type StoreTarget } from './backends';
import { buildStep, newRun, png, tempDir, tempDbPath } from './fixtures';

const MIGRATIONS = migrationsFor('sqlite');
const PG_MIGRATIONS = migrationsFor('postgres');

/**
 * Shipped migrations are frozen: databases in the field were built by them. Change the schema by
 * adding a migration at the end of the list; never by editing one of these.
 */
const SHIPPED = [
  [1, '3720934f7871dd243426a410c614a865d617ac5fba6553a3b5dd4ada786f3c6c'],
  [2, 'a4d6e442fda381b6530d2b8a553a14a9515da27aeb088f94831ea7d13a7033c5'],
  [3, '33818d7c6dc8e3562ffb1fcb202c441be3ce192b7bd4ba523bb0ee17821065b8'],
  [4, '5872ae5835d9e59ac112dbb80ed16ed660724df4c0f8dedd2751cb0af8c76300'],
  [5, 'b3d38179b2bf7076b3f78dc5da83287f5dcfdadf57c4a969368a4bc63416ae96'],
  [6, '4f6e1765941793db98af2da2f0b437b72e2f73a362fa4ba78cc5980711504c14'],
  [7, '957d3172c26bfca1a7f7fa4c79f33c66d5e37df07a6742ee40d0a01f594d0d14'],
  [8, '384e1933b4fe3aaa98851f27dbd9309f6b283ebbf4613b289d8a566ba950d49b'],
] as const;

describe('migrations', () => {
  it('are numbered 1..n without gaps, and the shipped ones are unchanged', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const [version, checksum] of SHIPPED) expect(migrationChecksum(MIGRATIONS[version - 1]!), `migration ${version} was edited`).toBe(checksum);
  });

  it('build a new database from scratch, recorded in schema_migrations', () => {
    const path = tempDbPath();
    const store = openStore(path);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    store.close();
    const raw = new Database(path, { readonly: true });
    const names = raw.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name").pluck().all();
    expect(names).toEqual(expect.arrayContaining(['runs', 'steps', 'screenshots', 'progress', 'run_events', 'approvals', 'model_payloads', 'schema_migrations']));
    const applied = raw.prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version').all();
    expect(applied).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, checksum: migrationChecksum(m) })));
    raw.close();
  });

  it('upgrade a database created at migration 1, keeping its runs verifiable and its approvals queryable', async () => {
    const path = tempDbPath();
    // A file as the first release left it: schema 1, one run with two steps, no approvals view.
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    migrate(old, 1);
    const run = newRun({ status: 'done', endedAt: '2026-01-05T10:00:00.000Z', startedAt: '2026-01-05T09:00:00.000Z' });
    old.prepare(
      `INSERT INTO runs (id, case_id, client_id, portal, task, planner, model, approve_mode, status, case_json, started_at, ended_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(run.id, run.caseId, run.clientId, run.portal, run.task, run.planner, run.model, run.approveMode, run.status, run.caseJson, run.startedAt, run.endedAt, run.startedAt, run.startedAt);
    let prev = genesisHash(run);
    for (let i = 0; i < 2; i++) {
      const { step, png: shot } = buildStep(run.id, i, { approval: i === 1 ? { decision: 'approve', by: 'Anna Byrne' } : undefined });
      old.prepare('INSERT INTO screenshots (sha256, png, bytes, first_seen_at) VALUES (?, ?, ?, ?)').run(step.screenshotHash, shot, shot!.length, step.startedAt);
      const json = canonicalJson(step);
      prev = stepHash(prev, json, step.screenshotHash);
      old.prepare('INSERT INTO steps (run_id, idx, json, observation_hash, screenshot_hash, hash, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        run.id, i, json, digest(step.observation), step.screenshotHash, prev, step.endedAt,
      );
    }
    old.prepare('UPDATE runs SET step_count = 2, head_hash = ? WHERE id = ?').run(prev, run.id);
    expect(() => old.prepare('SELECT * FROM approvals').all()).toThrow(/no such table/);
    old.close();

    const store = openStore(path);
    try {
      expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
      // A run from before chain format 2 verifies in format 1, and says so.
      expect(await store.verifyRun(run.id)).toMatchObject({ ok: true, format: 1, steps: 2, headHash: prev });
      expect(await store.approvals(run.id)).toMatchObject([{ step: 1, decision: 'approve', by: 'Anna Byrne' }]);
      expect((await store.listSteps(run.id)).map((s) => s.index)).toEqual([0, 1]);
      // Retention (migration 3) works on the upgraded file.
      const purged = await store.purge({ olderThanMs: 0, now: new Date('2026-02-01T00:00:00.000Z') });
      expect(purged).toMatchObject({ runs: 1, screenshots: 2 });
      expect(await store.verifyRun(run.id)).toMatchObject({ ok: true, purgedScreenshots: 2 });
    } finally {
      store.close();
    }
  });

  it('apply pending migrations all together or not at all', () => {
    const path = tempDbPath();
    const db = new Database(path);
    migrate(db, 1);
    db.exec('CREATE TABLE model_payloads (x INTEGER)'); // makes migration 3 fail
    expect(() => migrate(db)).toThrow(/model_payloads already exists/);
    expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'approvals'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuse a database from a newer Portal Desk without touching it', () => {
    const path = tempDbPath();
    openStore(path).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'from the future', 'x', 'now')").run();
    raw.close();
    expect(() => openStore(path)).toThrow(/schema version 99, newer than this Portal Desk understands.*Nothing was changed/);
  });
});

/** PostgreSQL's list (src/store/pg-migrations.ts), frozen the same way: office databases were built by it. */
const PG_SHIPPED = [
  [1, 'a79d54fbc98290d7f4d6692936c654774e7fe7682c71c1fd2f659dd9795a99d8'],
  [2, 'c2f6847684cc5fa920a3124524c5e6ae961c5505ad90fd191f8e61cb1a22f22f'],
  [3, 'c2cbdc1c5f150b956d928a69d24424d3975a5b4f8034a376cc3798fe83f72342'],
  [4, '3662f0cb2bc6c0b01a0c9ec528b7dc60819af52f1a2ebd6758e02425c77c27aa'],
  [5, 'b3d38179b2bf7076b3f78dc5da83287f5dcfdadf57c4a969368a4bc63416ae96'],
  [6, '366fd378e0151281a7b53141aa5086ede96c1a2afcfb4f4cf1e08a41c6ad6906'],
  [7, 'e4675f7c4187320e5810ee64bba2826acec2b8e6764803b68fd4d63b7074adbe'],
  [8, '384e1933b4fe3aaa98851f27dbd9309f6b283ebbf4613b289d8a566ba950d49b'],
] as const;

/** An empty office database brought to migration 1 only, as the first office release left one. */
async function pgAtMigration1(): Promise<StoreTarget> {
  const target = await storeTarget('postgres', { empty: true });
  await target.rows(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  await target.rows(PG_MIGRATIONS[0]!.sql);
  await target.rows('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)', 1, PG_MIGRATIONS[0]!.name, migrationChecksum(PG_MIGRATIONS[0]!), '2026-01-01T00:00:00.000Z');
  return target;
}

describe.skipIf(skipPostgres('postgres'))('migrations [postgres]', () => {
  it('are numbered 1..n without gaps, and the shipped ones are unchanged', () => {
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
    for (const [version, checksum] of PG_SHIPPED) expect(migrationChecksum(PG_MIGRATIONS[version - 1]!), `PostgreSQL migration ${version} was edited`).toBe(checksum);
  });

  it('build a new database from scratch, recorded in schema_migrations', async () => {
    const target = await storeTarget('postgres', { empty: true });
    await target.open();
    const names = (await target.rows("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['runs', 'steps', 'screenshots', 'progress', 'run_events', 'approvals', 'model_payloads', 'routes', 'schema_migrations']));
    expect(await target.rows('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, checksum: migrationChecksum(m) })));
  });

  it('upgrade a database created at migration 1, keeping its runs verifiable and its approvals queryable', async () => {
    const target = await pgAtMigration1();
    const run = newRun({ status: 'done', endedAt: '2026-01-05T10:00:00.000Z', startedAt: '2026-01-05T09:00:00.000Z' });
    await target.rows(
      `INSERT INTO runs (id, case_id, client_id, portal, task, planner, model, approve_mode, status, case_json, started_at, ended_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      run.id, run.caseId, run.clientId, run.portal, run.task, run.planner, run.model, run.approveMode, run.status, run.caseJson, run.startedAt, run.endedAt, run.startedAt, run.startedAt,
    );
    let prev = genesisHash(run);
    for (let i = 0; i < 2; i++) {
      const { step, png: shot } = buildStep(run.id, i, { approval: i === 1 ? { decision: 'approve', by: 'Anna Byrne' } : undefined });
      await target.rows('INSERT INTO screenshots (sha256, png, bytes, first_seen_at) VALUES (?, ?, ?, ?)', step.screenshotHash, shot, shot!.length, step.startedAt);
      const json = canonicalJson(step);
      prev = stepHash(prev, json, step.screenshotHash);
      await target.rows('INSERT INTO steps (run_id, idx, json, observation_hash, screenshot_hash, hash, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)', run.id, i, json, digest(step.observation), step.screenshotHash, prev, step.endedAt);
    }
    await target.rows('UPDATE runs SET step_count = 2, head_hash = ? WHERE id = ?', prev, run.id);
    expect(await target.value("SELECT to_regclass('approvals')::text")).toBeNull();

    const store = await target.open();
    expect(await target.value('SELECT max(version) FROM schema_migrations')).toBe(LATEST_SCHEMA_VERSION);
    expect(await store.verifyRun(run.id)).toMatchObject({ ok: true, format: 1, steps: 2, headHash: prev });
    expect(await store.approvals(run.id)).toMatchObject([{ step: 1, decision: 'approve', by: 'Anna Byrne' }]);
    expect((await store.listSteps(run.id)).map((s) => s.index)).toEqual([0, 1]);
    const purged = await store.purge({ olderThanMs: 0, now: new Date('2026-02-01T00:00:00.000Z') });
    expect(purged).toMatchObject({ runs: 1, screenshots: 2 });
    expect(await store.verifyRun(run.id)).toMatchObject({ ok: true, purgedScreenshots: 2 });
  });

  it('apply pending migrations all together or not at all', async () => {
    const target = await pgAtMigration1();
    await target.rows('CREATE TABLE model_payloads (x INTEGER)'); // makes migration 3 fail
    await expect(target.open()).rejects.toThrow(/model_payloads.*already exists/);
    expect(await target.value('SELECT max(version) FROM schema_migrations')).toBe(1);
    expect(await target.value("SELECT to_regclass('approvals')::text")).toBeNull();
  });
});

describe('the database file', () => {
  it('uses WAL, full sync, foreign keys and incremental vacuum, and it and its WAL are owner-only', () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.prepare("INSERT INTO progress VALUES ('c', 'p', 't', 'C', '[]', NULL, NULL, NULL, 'now')").run();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    db.close();
  });

  it('explains what went wrong with a file that is not a database', async () => {
    const path = tempDbPath();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, 'these are not the bytes you are looking for, not at all, no'.repeat(30));
    expect(() => openStore(path)).toThrow(new RegExp(`Could not open the Portal Desk database at ${path}: file is not a database`));
  });

  it('lives in PORTAL_DESK_HOME, else XDG_DATA_HOME/portal-desk, else ~/.local/share/portal-desk, created 0700', () => {
    const root = tempDir();
    const home = join(root, 'home');
    expect(defaultDbPath({ PORTAL_DESK_HOME: join(root, 'pd') }, home)).toBe(join(root, 'pd', 'portal-desk.sqlite'));
    expect(defaultDbPath({ XDG_DATA_HOME: join(root, 'xdg') }, home)).toBe(join(root, 'xdg', 'portal-desk', 'portal-desk.sqlite'));
    expect(defaultDbPath({ XDG_DATA_HOME: 'relative/ignored' }, home)).toBe(join(home, '.local', 'share', 'portal-desk', 'portal-desk.sqlite'));
    expect(statSync(join(root, 'pd')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, '.local', 'share', 'portal-desk')).mode & 0o777).toBe(0o700);
  });

  it('lets a second connection read while a run is being written (WAL)', async () => {
    const path = tempDbPath();
    const writer = openStore(path);
    const reader = openStore(path);
    try {
      await writer.createRun(newRun());
      await writer.recordStep(buildStep('run-2026-03-02-a1', 0).step, png(0));
      expect((await reader.listSteps('run-2026-03-02-a1')).length).toBe(1);
    } finally {
      writer.close();
      reader.close();
    }
  });
});
