import { describe, expect, it } from 'vitest';
import { openConfiguredStore, openPgStore, openStore, PgStore, SqliteStore, StoreOpenError, LATEST_SCHEMA_VERSION } from '../../src/store';
import { migrationsFor } from '../../src/store/migrations';
import { eachStore, skipPostgres, storeTarget } from './backends';
import { buildStep, newRun, tempDbPath } from './fixtures';

const MIGRATIONS = migrationsFor('sqlite');

/** What only the PostgreSQL store has to show: its schema history, opening, and several desks on one database. */
describe('the PostgreSQL schema', () => {
  it('is the one migration list in its own dialect, version for version and name for name', () => {
    const pg = migrationsFor('postgres');
    expect(pg.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
    // Its own text where the SQL differs (the first: plpgsql guards, BYTEA, no STRICT), the same text where it does not.
    expect(pg[0]!.sql).toMatch(/BYTEA/);
    expect(MIGRATIONS[0]!.sql).toMatch(/ STRICT;/);
    expect(pg.at(-1)!.sql).toBe(MIGRATIONS.at(-1)!.sql);
  });
});

describe.skipIf(skipPostgres('postgres'))('opening the PostgreSQL store', () => {
  it('upgrades once when two desks open a new database at the same moment', async () => {
    const target = await storeTarget('postgres', { empty: true });
    const [a, b] = await Promise.all([target.open(), target.open()]);
    expect(await target.rows('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    expect(await (a as PgStore).schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    // Writes at once keep one ordered log (the row lock); then desk b takes the run over, and
    // from then on desk a's writes are refused (fencing: the lease epoch moved on).
    await a.createRun(newRun());
    await Promise.all([0, 1, 2, 3].map(async (i) => a.updateRun('run-2026-03-02-a1', { reason: `note ${i}` })));
    expect(await (b as PgStore).takeOver('run-2026-03-02-a1', 'desk a stopped beating')).toBe(true);
    expect(await (a as PgStore).holds('run-2026-03-02-a1')).toBe(false);
    await b.recordStep(buildStep('run-2026-03-02-a1', 0).step, buildStep('run-2026-03-02-a1', 0).png);
    await expect(a.updateRun('run-2026-03-02-a1', { status: 'failed', reason: 'a stale desk' })).rejects.toThrow(/this desk's hold on it \(lease epoch 1\) was taken over \(epoch 3 now\); it stopped and wrote nothing/);
    await expect(a.recordStep(buildStep('run-2026-03-02-a1', 1).step, buildStep('run-2026-03-02-a1', 1).png)).rejects.toThrow(/was taken over/);
    expect(await (b as PgStore).holds('run-2026-03-02-a1')).toBe(true);
    expect(await a.verifyRun('run-2026-03-02-a1')).toMatchObject({ ok: true, steps: 1, events: 6 });
    expect((await a.getRun('run-2026-03-02-a1'))?.status).toBe('interrupted');
  });

  it('refuses a database from a newer Portal Desk, and a read-only open of one that has no store, changing nothing', async () => {
    const target = await storeTarget('postgres', { empty: true });
    await expect(target.open({ readOnly: true })).rejects.toThrow(/is not a Portal Desk store/);
    expect(await target.value("SELECT to_regclass('schema_migrations')::text")).toBeNull();
    await (await target.open()).close();
    await target.rows("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'from the future', 'x', 'now')");
    await expect(target.open()).rejects.toThrow(/schema version 99, newer than this Portal Desk understands.*Nothing was changed/);
  });

  it('opens read-only for verify and replay: reads answer, writes are refused', async () => {
    const target = await storeTarget('postgres');
    const writer = await target.open();
    await writer.createRun(newRun());
    const reader = await target.open({ readOnly: true });
    expect((await reader.getRun('run-2026-03-02-a1'))?.status).toBe('running');
    expect(await reader.verifyRun('run-2026-03-02-a1')).toMatchObject({ ok: true });
    await expect(reader.updateRun('run-2026-03-02-a1', { reason: 'x' })).rejects.toThrow(/opened read-only; nothing was written/);
  });

  it('says in one line when the server cannot be reached, never printing the password', async () => {
    const error = await openPgStore('postgres://clerk:s3cret-pw@127.0.0.1:1/office').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as Error).message).toMatch(/^Could not open the Portal Desk database at postgres:\/\/clerk:\*\*\*@127\.0\.0\.1:1\/office: .*ECONNREFUSED/);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });
});

describe('openConfiguredStore', () => {
  it('opens this desk’s SQLite file unless PORTAL_DESK_DATABASE_URL names an office database', async () => {
    const store = await openConfiguredStore({ dbPath: tempDbPath(), env: {} });
    expect(store).toBeInstanceOf(SqliteStore);
    await store.close();
    await expect(openConfiguredStore({ dbPath: tempDbPath(), env: { PORTAL_DESK_DATABASE_URL: 'mysql://office' } })).rejects.toThrow(/PORTAL_DESK_DATABASE_URL: it is not a PostgreSQL address/);
  });

  it.skipIf(skipPostgres('postgres'))('opens the office store when it does, keeping the desk’s own files in its data folder', async () => {
    const target = await storeTarget('postgres');
    const store = await openConfiguredStore({ dbPath: tempDbPath(), env: { PORTAL_DESK_DATABASE_URL: target.where, PORTAL_DESK_HOME: '/tmp/desk-home' } });
    try {
      expect(store).toBeInstanceOf(PgStore);
      expect(store.localFolder).toBe('/tmp/desk-home');
      expect(store.path).toBe(target.where);
    } finally {
      await store.close();
    }
  });
});

describe('fencing on one SQLite file (a desk and a second process resuming its run)', () => {
  it('a store whose run another store resumed writes nothing more into it', async () => {
    const path = tempDbPath();
    const first = openStore(path);
    const second = openStore(path);
    try {
      await first.createRun(newRun());
      await first.recordStep(buildStep('run-2026-03-02-a1', 0).step, buildStep('run-2026-03-02-a1', 0).png);
      await second.updateRun('run-2026-03-02-a1', { status: 'running', reason: 'Resumed at step 1' });
      expect(await first.holds('run-2026-03-02-a1')).toBe(false);
      await expect(first.recordStep(buildStep('run-2026-03-02-a1', 1).step, buildStep('run-2026-03-02-a1', 1).png)).rejects.toThrow(/lease epoch 1\) was taken over \(epoch 2 now\)/);
      await second.recordStep(buildStep('run-2026-03-02-a1', 1).step, buildStep('run-2026-03-02-a1', 1).png);
      expect(await second.verifyRun('run-2026-03-02-a1')).toMatchObject({ ok: true, steps: 2 });
    } finally {
      first.close();
      second.close();
    }
  });
});

eachStore('fencing reaches every write of a run, not only its steps', (kind) => {
  it('a desk whose run another desk took writes no progress record and no model payload for it', async () => {
    const target = await storeTarget(kind);
    const [first, second] = [await target.open(), await target.open()];
    const runId = 'run-2026-03-02-a1';
    const progress = { clientId: 'lakshmi-stores', portal: 'shops', task: 'shop-registration-renewal', caseId: 'C-2026-0142', sectionsDone: ['business'], updatedAt: '2026-03-02T09:00:00.000Z' };
    await first.createRun(newRun());
    await first.saveProgress(progress, runId);
    // The second desk resumes the run: its first write takes the hold (the lease epoch moves on).
    await second.updateRun(runId, { status: 'running', reason: 'Resumed at step 0' });
    await expect(first.saveProgress({ ...progress, sectionsDone: ['business', 'owner'], draftId: 'D-1', updatedAt: '2026-03-02T09:05:00.000Z' }, runId)).rejects.toThrow(/lease epoch 1\) was taken over \(epoch 2 now\); it stopped and wrote nothing/);
    await expect(first.recordModelPayload(runId, 0, { request: { note: 'a stale desk' }, response: null })).rejects.toThrow(/was taken over/);
    expect(await second.getProgress(progress.clientId, progress.portal, progress.task)).toEqual(progress);
    expect(await second.getModelPayload(runId, 0)).toBeNull();
    // The desk that holds the run writes both.
    await second.saveProgress({ ...progress, draftId: 'D-2' }, runId);
    await second.recordModelPayload(runId, 0, { request: { note: 'the holding desk' }, response: null });
    expect((await first.getProgress(progress.clientId, progress.portal, progress.task))?.draftId).toBe('D-2');
    expect(await first.getModelPayload(runId, 0)).toMatchObject({ request: { note: 'the holding desk' } });
  });
});
