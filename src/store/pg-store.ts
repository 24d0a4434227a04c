import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../base/canonical-json';
import type { CreateRunOptions, StepPictures } from '../shared/recorder';
import { FINAL_STATUSES, ProgressRecord, RunRecord, type RunStatus, StepRecord } from '../shared/run';
import { TraceRecord } from '../shared/trace';
import { CHAIN_DEFINITION, genesisHash, stepHash, verifyChain, type ScreenshotState, type VerifyResult } from './chain';
import { CHAIN_V2_DEFINITION, claimedRun, eventChainJson, eventHash, genesisRecord, receiptSha256In, verifyChainV2, type ChainedEvent, type ChainRecordRef } from './chain-v2';
import { StoreOpenError } from './database';
import { LATEST_SCHEMA_VERSION, migrationChecksum, SchemaTooNewError } from './migrations';
import { PG_MIGRATIONS } from './pg-migrations';
import { resilientPool } from './pg-pool';
import { PgRouteStore } from './pg-route-store';
import {
  approvalFromRow,
  eventFromRow,
  progressFromRow,
  runFromRow,
  type ApprovalEntry,
  type ApprovalRow,
  type ProgressRow,
  type RunEvent,
  type RunEventRow,
  type RunEventType,
  type RunRow,
} from './records';
import { RUN_EXPORT_FORMAT, RUN_EXPORT_VERSION, type RunExport, type RunExportV1, type RunExportV2 } from './run-export';
import { ClientBusyError } from './client-busy';
import { RunLeases } from './lease';
import { SecretGuard } from './secret-guard';
import type { Store } from './store-api';
import { fieldName, identityOf, pictureBytes, processIsAlive, storedEventOf, type ModelPayload, type PurgeOptions, type PurgeResult, type RunQuery } from './store';

/** The address that chooses the office store at the composition roots. */
export const DATABASE_URL_ENV = 'PORTAL_DESK_DATABASE_URL';

export interface PgStoreOptions {
  /** The clock for audit rows and purge (tests pin it). */
  now?: () => Date;
  /** Never write: no schema upgrade, and every transaction is read-only (verify, replay). */
  readOnly?: boolean;
  /** A folder on this desk for files kept beside the store (receipts). */
  localFolder?: string;
  /** Connections this desk keeps open (default 4). */
  poolSize?: number;
  /** This desk's name in `owner_host` (default: the machine's host name). */
  host?: string;
}

const NewRun = RunRecord.omit({ stepCount: true, usage: true, headHash: true });
const RunPatch = z.strictObject({ ...RunRecord.pick({ status: true, reason: true, applicationNumber: true, endedAt: true, caseJson: true, model: true }).shape, trace: TraceRecord }).partial();
type RunPatch = z.infer<typeof RunPatch>;
const LIVE_STATUSES: readonly RunStatus[] = ['running', 'awaiting_approval', 'awaiting_input'];
/** One lock number for schema upgrades, so two desks starting at once upgrade once. */
const MIGRATION_LOCK = 0x7064_0019;
/** First key of the transaction lock a run's start takes on its client and portal (the office queue's slot locks use 19). */
const CLIENT_LOCK_SPACE = 29;

type Client = pg.PoolClient;
interface PgRunRow extends RunRow {
  owner_host: string | null;
}

/** The address as messages show it: never its password. */
function safeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(an address that does not parse)';
  }
}

/**
 * Opens the office store at `url` (postgres://user@host:port/db), upgrading its schema unless
 * `readOnly`. Every failure is a StoreOpenError with one line: nothing was changed.
 */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const shown = safeDatabaseUrl(url);
  // A connection the server drops (a restart) must not crash the process.
  const pool = resilientPool({ connectionString: url, max: options.poolSize ?? 4, connectionTimeoutMillis: 10_000 });
  try {
    const c = await pool.connect();
    try {
      const version = options.readOnly ? await readVersion(c) : await migratePg(c);
      if (version > LATEST_SCHEMA_VERSION) {
        throw new SchemaTooNewError(
          `The database is at schema version ${version}, newer than this Portal Desk understands (${LATEST_SCHEMA_VERSION}). Nothing was changed; update Portal Desk to open it.`,
        );
      }
      if (options.readOnly && version < LATEST_SCHEMA_VERSION) {
        throw new StoreOpenError(shown, version === 0 ? 'it is not a Portal Desk store (no schema in that database); check PORTAL_DESK_DATABASE_URL' : `it is at schema version ${version}; open it once with a recording command to upgrade it`);
      }
    } finally {
      c.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof StoreOpenError) throw err;
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new StoreOpenError(shown, message.length > 200 ? `${message.slice(0, 200)}…` : message, { cause: err });
  }
  return new PgStore(pool, shown, options);
}

async function readVersion(c: Client): Promise<number> {
  const exists = await c.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const r = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return r.rows[0]?.v ?? 0;
}

/** Brings the schema up to date in one transaction under an advisory lock; returns the version found. */
async function migratePg(c: Client): Promise<number> {
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const from = await readVersion(c);
    if (from <= LATEST_SCHEMA_VERSION) {
      for (const m of PG_MIGRATIONS) {
        if (m.version <= from) continue;
        await c.query(m.sql);
        await c.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [m.version, m.name, migrationChecksum(m), new Date().toISOString()]);
      }
    }
    await c.query('COMMIT');
    return from;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * The office store: the same records, hash chain, secret refusal and replay queries as the
 * SQLite store, in one PostgreSQL database several desks share. Each call is one transaction
 * (a step, its screenshot, the run's counters and head in one); a run's writes take its row's
 * lock, so two desks can never interleave records in one chain.
 */
export class PgStore implements Store {
  readonly kind = 'postgres' as const;
  readonly localFolder: string | undefined;
  private readonly ownerToken = randomUUID();
  private readonly host: string;
  private readonly secrets = new SecretGuard();
  /** This store's holds on the runs it writes (fencing, src/store/lease.ts). */
  private readonly leases = new RunLeases();
  private readonly now: () => Date;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly path: string,
    private readonly options: PgStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.host = options.host ?? hostname();
    this.localFolder = options.localFolder;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** Queries outside the store's own (the office queue, the human-wait board): same pool, same address. */
  get connections(): pg.Pool {
    return this.pool;
  }

  /** The office's learned routes, on this store's connections (one route per portal and task for every desk). */
  routeStore(): PgRouteStore {
    return new PgRouteStore(this.pool);
  }

  async schemaVersion(): Promise<number> {
    const c = await this.pool.connect();
    try {
      return await readVersion(c);
    } finally {
      c.release();
    }
  }

  registerSecret(secret: string, runId?: string): void {
    this.secrets.register(secret, runId);
  }

  // ---- RunRecorder ---------------------------------------------------------------------------

  async createRun(input: Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'>, options: CreateRunOptions = {}): Promise<void> {
    const run = NewRun.parse(input);
    this.secrets.check(run, run.id, `run ${run.id}`);
    const at = this.now().toISOString();
    await this.tx(async (c) => {
      if (options.oneLivePerClient) await this.refuseBusyClient(c, run.clientId, run.portal, run.id);
      const inserted = await c.query(
        `INSERT INTO runs (id, case_id, client_id, portal, task, planner, model, approve_mode, status, reason, application_number,
                           case_json, layout, started_at, ended_at, owner_pid, owner_token, owner_host, created_at, updated_at, chain_version, genesis_json, lease_epoch)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, 2, $20, 1)
         ON CONFLICT (id) DO NOTHING`,
        [
          run.id,
          run.caseId,
          run.clientId,
          run.portal,
          run.task,
          run.planner,
          run.model ?? null,
          run.approveMode,
          run.status,
          run.reason ?? null,
          run.applicationNumber ?? null,
          run.caseJson,
          run.layout ?? null,
          run.startedAt,
          run.endedAt ?? null,
          process.pid,
          this.ownerToken,
          this.host,
          at,
          canonicalJson(genesisRecord(run)),
        ],
      );
      if (inserted.rowCount === 0) throw new Error(`Run ${run.id} already exists; nothing was changed (run ids are unique)`);
      const set: Record<string, unknown> = { status: run.status, reason: run.reason ?? null };
      if (run.applicationNumber !== undefined) set.applicationNumber = run.applicationNumber;
      if (run.endedAt !== undefined) set.endedAt = run.endedAt;
      await this.addEvent(c, run.id, at, 'created', { to: run.status, reason: run.reason ?? null }, set);
    });
    this.leases.created(run.id);
  }

  async recordStep(input: StepRecord, screenshot: Uint8Array | null, pictures: StepPictures = {}): Promise<void> {
    const parsed = StepRecord.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`Refused to record a step: ${issue?.path.join('.') || 'the step'}: ${issue?.message ?? 'invalid'}. Nothing was written.`);
    }
    const step = parsed.data;
    const what = `step ${step.index} of run ${step.runId}`;
    this.secrets.check(step, step.runId, what);
    const pngs = {
      before: pictureBytes(what, 'screenshot', 'screenshotHash', screenshot, step.screenshotHash),
      after: pictureBytes(what, 'after picture', 'afterScreenshotHash', pictures.after ?? null, step.afterScreenshotHash ?? null),
      fullPage: pictureBytes(what, 'full-page picture', 'fullPageHash', pictures.fullPage ?? null, step.fullPageHash ?? null),
    };
    const json = canonicalJson(step);
    await this.tx(async (c) => {
      const run = await this.fencedRun(c, step.runId);
      if (step.index !== run.step_count) {
        throw new Error(`Refused to record step ${step.index} of run ${step.runId}: the run has ${run.step_count} steps, so the next one is step ${run.step_count}. Nothing was written.`);
      }
      if (run.step_count > 0 && run.head_hash === null) throw new Error(`Run ${step.runId} has steps but no head hash; run verifyRun before recording more`);
      const v2 = run.chain_version === 2;
      const prev = run.head_hash ?? (v2 && run.genesis_json !== null ? sha256Hex(run.genesis_json) : genesisHash(identityOf(run)));
      const at = this.now().toISOString();
      for (const [png, sha256] of [
        [pngs.before, step.screenshotHash],
        [pngs.after, step.afterScreenshotHash],
        [pngs.fullPage, step.fullPageHash],
      ] as const) {
        if (!png || !sha256) continue;
        // A purged blob seen again gets its bytes back (same hash, so same bytes).
        await c.query(
          `INSERT INTO screenshots (sha256, png, bytes, first_seen_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (sha256) DO UPDATE SET png = excluded.png, purged_at = NULL WHERE screenshots.png IS NULL`,
          [sha256, png, png.byteLength, at],
        );
      }
      const hash = stepHash(prev, json, step.screenshotHash);
      await c.query(
        'INSERT INTO steps (run_id, idx, pos, json, observation_hash, screenshot_hash, after_hash, full_page_hash, hash, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [step.runId, step.index, v2 ? run.record_count : null, json, step.observationHash, step.screenshotHash, step.afterScreenshotHash ?? null, step.fullPageHash ?? null, hash, at],
      );
      const u = step.model?.usage;
      await c.query(
        `UPDATE runs SET step_count = step_count + 1,
                input_tokens = input_tokens + $2, output_tokens = output_tokens + $3,
                cache_read_tokens = cache_read_tokens + $4, cache_write_tokens = cache_write_tokens + $5,
                cost_usd = cost_usd + $6, head_hash = $7, record_count = record_count + 1,
                owner_pid = $8, owner_token = $9, owner_host = $10, updated_at = $11
         WHERE id = $1`,
        [step.runId, u?.inputTokens ?? 0, u?.outputTokens ?? 0, u?.cacheReadTokens ?? 0, u?.cacheWriteTokens ?? 0, u?.costUsd ?? 0, hash, process.pid, this.ownerToken, this.host, at],
      );
    });
  }

  /** See Store.resumeRun: the client's lock, the run's row lock, its liveness and the status change in one transaction. */
  async resumeRun(runId: string, reason: string): Promise<void> {
    const patch = RunPatch.parse({ status: 'running', reason });
    this.writable();
    await this.tx(async (c) => {
      const found = await this.requireRun(c, runId);
      await this.refuseBusyClient(c, found.client_id, found.portal, runId);
      const row = await this.lockRun(c, runId);
      if (LIVE_STATUSES.includes(row.status as RunStatus) && !this.ownerGone(row)) throw new ClientBusyError(row.client_id, row.portal, row, runId);
      this.leases.resuming(runId);
      await this.updateRunTx(c, runId, patch);
    });
  }

  async updateRun(runId: string, patch: Partial<Pick<RunRecord, 'status' | 'reason' | 'applicationNumber' | 'endedAt' | 'caseJson' | 'model'>> & { trace?: TraceRecord }): Promise<void> {
    const checked = RunPatch.parse(patch);
    this.secrets.check(checked, runId, `an update of run ${runId}`);
    await this.tx((c) => this.updateRunTx(c, runId, checked));
    if (checked.status && FINAL_STATUSES.includes(checked.status)) this.secrets.release(runId);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const r = await this.pool.query<PgRunRow>('SELECT * FROM runs WHERE id = $1', [runId]);
    return r.rows[0] ? runFromRow(r.rows[0]) : null;
  }

  async listSteps(runId: string): Promise<StepRecord[]> {
    const r = await this.pool.query<{ json: string }>('SELECT json FROM steps WHERE run_id = $1 ORDER BY idx', [runId]);
    return r.rows.map((row) => StepRecord.parse(JSON.parse(row.json)));
  }

  async getProgress(clientId: string, portal: string, task: string): Promise<ProgressRecord | null> {
    const r = await this.pool.query<ProgressRow>('SELECT * FROM progress WHERE client_id = $1 AND portal = $2 AND task = $3', [clientId, portal, task]);
    return r.rows[0] ? progressFromRow(r.rows[0]) : null;
  }

  /** Fenced by the writing run (`runId`): refused, nothing written, when this desk's hold on it is stale. */
  async saveProgress(input: ProgressRecord, runId?: string): Promise<void> {
    const p = ProgressRecord.parse(input);
    this.secrets.check(p, runId ?? null, `the progress of ${p.clientId} on ${p.portal} (${p.task})`);
    this.writable();
    await this.tx(async (c) => {
      if (runId !== undefined) await this.fencedRun(c, runId);
      await c.query(
        `INSERT INTO progress (client_id, portal, task, case_id, sections_done, draft_id, application_number, submit_attempted_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (client_id, portal, task) DO UPDATE SET
           case_id = excluded.case_id, sections_done = excluded.sections_done, draft_id = excluded.draft_id,
           application_number = excluded.application_number, submit_attempted_at = excluded.submit_attempted_at,
           updated_at = excluded.updated_at`,
        [p.clientId, p.portal, p.task, p.caseId, JSON.stringify(p.sectionsDone), p.draftId ?? null, p.applicationNumber ?? null, p.submitAttemptedAt ?? null, p.updatedAt],
      );
    });
  }

  // ---- Replay and audit ----------------------------------------------------------------------

  async listRuns(query: RunQuery = {}): Promise<RunRecord[]> {
    const statuses = query.status === undefined ? null : typeof query.status === 'string' ? [query.status] : [...query.status];
    const limit = Math.min(Math.max(Math.floor(query.limit ?? 50), 0), 1000);
    const offset = Math.max(Math.floor(query.offset ?? 0), 0);
    const r = await this.pool.query<PgRunRow>(
      'SELECT * FROM runs WHERE ($1::text[] IS NULL OR status = ANY($1::text[])) ORDER BY started_at DESC, seq DESC LIMIT $2 OFFSET $3',
      [statuses, limit, offset],
    );
    return r.rows.map(runFromRow);
  }

  async getStep(runId: string, index: number): Promise<StepRecord | null> {
    const r = await this.pool.query<{ json: string }>('SELECT json FROM steps WHERE run_id = $1 AND idx = $2', [runId, index]);
    return r.rows[0] ? StepRecord.parse(JSON.parse(r.rows[0].json)) : null;
  }

  async getScreenshot(sha256: string): Promise<Uint8Array | null> {
    const r = await this.pool.query<{ png: Buffer | null }>('SELECT png FROM screenshots WHERE sha256 = $1', [sha256]);
    return r.rows[0]?.png ?? null;
  }

  async approvals(runId: string): Promise<ApprovalEntry[]> {
    const r = await this.pool.query<ApprovalRow>('SELECT * FROM approvals WHERE run_id = $1 ORDER BY step, action_index', [runId]);
    return r.rows.map(approvalFromRow);
  }

  async auditTrail(runId: string): Promise<RunEvent[]> {
    const r = await this.pool.query<RunEventRow>('SELECT * FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
    return r.rows.map(eventFromRow);
  }

  /**
   * Marks runs left live by a process of THIS desk that is gone as `interrupted`. Runs of other
   * desks are theirs: a process id means nothing across machines. A desk that died with a run is
   * taken over through the office queue (`takeOver`), whose lease says the desk lost it.
   */
  async markInterrupted(): Promise<string[]> {
    const at = this.now().toISOString();
    return this.tx(async (c) => {
      const marked: string[] = [];
      const live = await c.query<PgRunRow>('SELECT * FROM runs WHERE status = ANY($1::text[]) AND (owner_host = $2 OR owner_host IS NULL) ORDER BY seq FOR UPDATE', [
        [...LIVE_STATUSES],
        this.host,
      ]);
      for (const row of live.rows) {
        if (row.owner_token === this.ownerToken) continue;
        if (row.owner_pid !== null && row.owner_pid !== process.pid && processIsAlive(row.owner_pid)) continue;
        const reason = `Interrupted: the process running it stopped${row.owner_pid !== null ? ` (pid ${row.owner_pid})` : ''} after step ${row.step_count}; resume to continue`;
        await this.interrupt(c, row, reason, at, { ownerPid: row.owner_pid, steps: row.step_count });
        marked.push(row.id);
      }
      return marked;
    });
  }

  /** The newest run of this case (same case id, client, portal and task), or null: the office queue's check before it runs a case. */
  async latestRunOf(c: { caseId: string; clientId: string; portal: string; task: string }): Promise<RunRecord | null> {
    const r = await this.pool.query<PgRunRow>('SELECT * FROM runs WHERE case_id = $1 AND client_id = $2 AND portal = $3 AND task = $4 ORDER BY started_at DESC, seq DESC LIMIT 1', [
      c.caseId,
      c.clientId,
      c.portal,
      c.task,
    ]);
    return r.rows[0] ? runFromRow(r.rows[0]) : null;
  }

  /**
   * Takes over a run whose desk lost it (the office queue's lease on its case expired): a live
   * run becomes `interrupted` with an audit row naming the desk that had it, so `resume` may go
   * on from its progress record. Returns false when the run is not live (already interrupted,
   * or final).
   */
  async takeOver(runId: string, why: string): Promise<boolean> {
    const at = this.now().toISOString();
    return this.tx(async (c) => {
      const row = await this.lockRun(c, runId);
      if (!LIVE_STATUSES.includes(row.status as RunStatus)) return false;
      const reason = `Interrupted: ${why} (desk ${row.owner_host ?? 'unknown'}, pid ${row.owner_pid ?? 'unknown'}) after step ${row.step_count}; resume to continue`;
      await this.interrupt(c, row, reason, at, { ownerPid: row.owner_pid, ownerHost: row.owner_host, steps: row.step_count });
      return true;
    });
  }

  private async interrupt(c: Client, row: PgRunRow, reason: string, at: string, detail: Record<string, unknown>): Promise<void> {
    // The epoch moves on: the desk that had the run can write nothing more into it (fencing).
    await c.query('UPDATE runs SET status = $2, reason = $3, updated_at = $4, lease_epoch = lease_epoch + 1 WHERE id = $1', [row.id, 'interrupted', reason, at]);
    await this.addEvent(c, row.id, at, 'interrupted', { from: row.status, to: 'interrupted', reason, detail }, { status: 'interrupted', reason });
  }

  // ---- Tamper evidence -----------------------------------------------------------------------

  async verifyRun(runId: string, options: { onRecord?: (record: ChainRecordRef) => void } = {}): Promise<VerifyResult> {
    return this.snapshot(async (c) => {
      const row = await this.requireRun(c, runId);
      const stepRows = await this.stepRows(c, runId);
      const steps = stepRows.map((s) => ({
        index: s.idx,
        pos: s.pos,
        json: s.json,
        hash: s.hash,
        columns: { screenshotHash: s.screenshot_hash, afterScreenshotHash: s.after_hash, fullPageHash: s.full_page_hash, observationHash: s.observation_hash },
      }));
      const shots = await this.screenshotStates(c, stepRows);
      const screenshot = (sha256: string): ScreenshotState => shots.get(sha256) ?? { state: 'missing' };
      if (row.chain_version === 2) {
        const events = await c.query<RunEventRow>('SELECT * FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
        return verifyChainV2({
          genesis: row.genesis_json,
          run: claimedRun(runFromRow(row), row.record_count),
          steps,
          events: events.rows.map(storedEventOf),
          screenshot,
          onRecord: options.onRecord,
        });
      }
      const v1 = verifyChain({ identity: identityOf(row), stepCount: row.step_count, headHash: row.head_hash, steps, screenshot });
      if (v1.ok) stepRows.forEach((s, pos) => options.onRecord?.({ pos, hash: s.hash, kind: 'step', type: 'step' }));
      return v1;
    });
  }

  async exportRun(runId: string): Promise<RunExport> {
    const exportedAt = this.now().toISOString();
    return this.snapshot(async (c) => {
      const row = await this.requireRun(c, runId);
      const stepRows = await this.stepRows(c, runId);
      const states = await this.screenshotStates(c, stepRows);
      const screenshots: Record<string, string | null> = {};
      for (const sha256 of stepRows.flatMap((s) => [s.screenshot_hash, s.after_hash, s.full_page_hash])) {
        if (sha256 === null || Object.hasOwn(screenshots, sha256)) continue;
        const state = states.get(sha256) ?? { state: 'missing' };
        if (state.state === 'present') screenshots[sha256] = Buffer.from(state.png).toString('base64');
        else if (state.state === 'purged') screenshots[sha256] = null;
      }
      const run = runFromRow(row);
      const steps = stepRows.map((s) => JSON.parse(s.json) as StepRecord);
      const auditTrail = (await c.query<RunEventRow>('SELECT * FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(eventFromRow);
      if (row.chain_version === 2) {
        const chain: RunExportV2['chain'] = {
          version: 2,
          definition: CHAIN_V2_DEFINITION,
          genesis: row.genesis_json === null ? null : (JSON.parse(row.genesis_json) as Record<string, unknown>),
          genesisHash: row.genesis_json === null ? '' : sha256Hex(row.genesis_json),
          stepHashes: stepRows.map((s) => s.hash),
          stepPositions: stepRows.map((s) => s.pos),
          recordCount: row.record_count,
          headHash: row.head_hash,
        };
        return { format: RUN_EXPORT_FORMAT, version: RUN_EXPORT_VERSION, exportedAt, run, chain, steps, screenshots, auditTrail } satisfies RunExportV2;
      }
      const chain: RunExportV1['chain'] = { definition: CHAIN_DEFINITION, genesisHash: genesisHash(identityOf(row)), stepHashes: stepRows.map((s) => s.hash), headHash: row.head_hash };
      return { format: RUN_EXPORT_FORMAT, version: 1, exportedAt, run, chain, steps, screenshots, auditTrail } satisfies RunExportV1;
    });
  }

  // ---- Model payloads and retention ----------------------------------------------------------

  async recordModelPayload(runId: string, stepIndex: number, payload: ModelPayload): Promise<void> {
    this.secrets.check(payload, runId, `the model payload of step ${stepIndex} of run ${runId}`);
    await this.tx(async (c) => {
      await this.fencedRun(c, runId);
      await c.query(
        `INSERT INTO model_payloads (run_id, idx, request, response, recorded_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (run_id, idx) DO UPDATE SET request = excluded.request, response = excluded.response, recorded_at = excluded.recorded_at`,
        [runId, stepIndex, canonicalJson(payload.request ?? null), payload.response === undefined ? null : canonicalJson(payload.response), this.now().toISOString()],
      );
    });
  }

  async getModelPayload(runId: string, stepIndex: number): Promise<ModelPayload | null> {
    const r = await this.pool.query<{ request: string; response: string | null }>('SELECT request, response FROM model_payloads WHERE run_id = $1 AND idx = $2', [runId, stepIndex]);
    const row = r.rows[0];
    return row ? { request: JSON.parse(row.request) as unknown, response: row.response === null ? null : (JSON.parse(row.response) as unknown) } : null;
  }

  /** Retention, as the SQLite store does it (see `SqliteStore.purge`); one transaction. */
  async purge(options: PurgeOptions): Promise<PurgeResult> {
    if (!Number.isFinite(options.olderThanMs) || options.olderThanMs < 0) throw new RangeError('purge: olderThanMs must be a non-negative number of milliseconds');
    const now = options.now ?? this.now();
    const cutoffMs = now.getTime() - options.olderThanMs;
    const cutoff = new Date(cutoffMs).toISOString();
    const at = now.toISOString();
    return this.tx(async (c): Promise<PurgeResult> => {
      const ended = await c.query<{ id: string; ended_at: string; purged_at: string | null }>('SELECT id, ended_at, purged_at FROM runs WHERE ended_at IS NOT NULL ORDER BY id');
      const scope: string[] = [];
      const newlyPurged: string[] = [];
      for (const r of ended.rows) {
        const end = Date.parse(r.ended_at);
        if (!Number.isFinite(end) || end >= cutoffMs) continue;
        scope.push(r.id);
        if (r.purged_at === null) newlyPurged.push(r.id);
      }
      const blobs = (
        await c.query<{ sha256: string; bytes: number }>(
          `SELECT sha256, bytes FROM screenshots
           WHERE png IS NOT NULL
             AND sha256 IN (SELECT sha256 FROM step_screenshots WHERE run_id = ANY($1::text[]))
             AND NOT EXISTS (SELECT 1 FROM step_screenshots AS s WHERE s.sha256 = screenshots.sha256 AND NOT (s.run_id = ANY($1::text[])))
           FOR UPDATE`,
          [scope],
        )
      ).rows;
      if (blobs.length) await c.query('UPDATE screenshots SET png = NULL, purged_at = $1 WHERE sha256 = ANY($2::text[])', [at, blobs.map((b) => b.sha256)]);
      const modelPayloads = (await c.query('DELETE FROM model_payloads WHERE run_id = ANY($1::text[])', [scope])).rowCount ?? 0;
      const dropped = new Set(blobs.map((b) => b.sha256));
      for (const id of scope) {
        const shots = await c.query<{ h: string }>('SELECT DISTINCT sha256 AS h FROM step_screenshots WHERE run_id = $1', [id]);
        const removed = shots.rows.map((r) => r.h).filter((h) => dropped.has(h)).sort();
        const first = newlyPurged.includes(id);
        if (!first && removed.length === 0) continue;
        if (first) await c.query('UPDATE runs SET purged_at = $1 WHERE id = $2', [at, id]);
        await this.addEvent(c, id, at, 'purged', { detail: { cutoff, olderThanMs: options.olderThanMs, screenshots: removed.length } }, { screenshots: removed });
      }
      return { cutoff, runs: newlyPurged.length, screenshots: blobs.length, screenshotBytes: blobs.reduce((n, b) => n + b.bytes, 0), modelPayloads };
    });
  }

  // ---- Inside transactions -------------------------------------------------------------------

  private async updateRunTx(c: Client, runId: string, patch: RunPatch): Promise<void> {
    const run = await this.fencedRun(c, runId);
    const from = run.status as RunStatus;
    const to = patch.status ?? from;
    const statusChanged = to !== from;
    if (statusChanged && FINAL_STATUSES.includes(from)) {
      throw new Error(`Run ${runId} is ${from}, a final status; it cannot become ${to}. Nothing was changed; start a new run instead.`);
    }
    const reason = 'reason' in patch ? (patch.reason ?? null) : statusChanged ? null : run.reason;
    const next = {
      status: to,
      reason,
      application_number: patch.applicationNumber ?? run.application_number,
      ended_at: patch.endedAt ?? run.ended_at,
      case_json: patch.caseJson ?? run.case_json,
      model: patch.model ?? run.model,
    };
    const changed = (['application_number', 'ended_at', 'case_json', 'model'] as const).filter((k) => next[k] !== run[k]).map(fieldName);
    const live = LIVE_STATUSES.includes(to);
    const at = this.now().toISOString();
    await c.query(
      `UPDATE runs SET status = $2, reason = $3, application_number = $4, ended_at = $5, case_json = $6, model = $7,
              owner_pid = $8, owner_token = $9, owner_host = $10, updated_at = $11 WHERE id = $1`,
      [
        runId,
        next.status,
        next.reason,
        next.application_number,
        next.ended_at,
        next.case_json,
        next.model,
        live ? process.pid : run.owner_pid,
        live ? this.ownerToken : run.owner_token,
        live ? this.host : run.owner_host,
        at,
      ],
    );
    const reasonChanged = reason !== run.reason;
    const set: Record<string, unknown> = {};
    if (statusChanged || patch.status !== undefined) set.status = to;
    if (reasonChanged || statusChanged) set.reason = reason;
    if (next.application_number !== run.application_number) set.applicationNumber = next.application_number;
    if (next.ended_at !== run.ended_at) set.endedAt = next.ended_at;
    if (next.model !== run.model) set.model = next.model;
    if (next.case_json !== run.case_json) set.caseJsonSha256 = sha256Hex(next.case_json);
    if (statusChanged || (patch.status !== undefined && reasonChanged)) {
      const type: RunEventType = statusChanged && from === 'interrupted' && live ? 'resumed' : 'status';
      await this.addEvent(c, runId, at, type, { from, to, reason, detail: changed.length ? { fields: changed } : undefined }, set);
    } else if (changed.length > 0 || reasonChanged) {
      await this.addEvent(c, runId, at, 'updated', { reason, detail: { fields: reasonChanged ? ['reason', ...changed] : changed } }, set);
    }
    if (statusChanged && FINAL_STATUSES.includes(to)) await this.addOutcome(c, runId, at, patch.trace);
  }

  private async addOutcome(c: Client, runId: string, at: string, trace?: TraceRecord): Promise<void> {
    const run = await this.requireRun(c, runId);
    const messages = await c.query<{ m: string | null }>(
      `SELECT e.value ->> 'message' AS m
       FROM steps AS s
       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.json::jsonb -> 'events') = 'array' THEN s.json::jsonb -> 'events' ELSE '[]'::jsonb END)
            WITH ORDINALITY AS e (value, ord)
       WHERE s.run_id = $1 AND e.value ->> 'type' = 'receipt' ORDER BY s.idx, e.ord`,
      [runId],
    );
    const receipt = messages.rows
      .map((r) => (r.m === null ? null : receiptSha256In(r.m)))
      .filter((h): h is string => h !== null)
      .at(-1);
    const r = runFromRow(run);
    await this.addEvent(
      c,
      runId,
      at,
      'outcome',
      { to: r.status, reason: r.reason ?? null, detail: { applicationNumber: r.applicationNumber ?? null, steps: r.stepCount } },
      {
        status: r.status,
        reason: r.reason ?? null,
        applicationNumber: r.applicationNumber ?? null,
        endedAt: r.endedAt ?? null,
        outcome: { steps: r.stepCount, usage: r.usage, receiptSha256: receipt ?? null, ...(trace ? { trace } : {}) },
      },
    );
  }

  private async addEvent(
    c: Client,
    runId: string,
    at: string,
    type: RunEventType,
    e: { from?: string; to?: string; reason?: string | null; detail?: Record<string, unknown> },
    set: Record<string, unknown>,
  ): Promise<void> {
    const run = await this.requireRun(c, runId);
    const detail = e.detail ? (JSON.parse(JSON.stringify(e.detail)) as Record<string, unknown>) : undefined;
    const setJson = Object.keys(set).length ? (JSON.parse(JSON.stringify(set)) as Record<string, unknown>) : undefined;
    let chained: { pos: number; hash: string } | null = null;
    if (run.chain_version === 2) {
      const pos = run.record_count;
      const prev = run.head_hash ?? sha256Hex(run.genesis_json ?? '');
      const event: ChainedEvent = { runId, pos, at, type, pid: process.pid };
      if (e.from) event.fromStatus = e.from;
      if (e.to) event.toStatus = e.to;
      if (e.reason) event.reason = e.reason;
      if (detail) event.detail = detail;
      if (setJson) event.set = setJson;
      chained = { pos, hash: eventHash(prev, eventChainJson(event)) };
    }
    await c.query('INSERT INTO run_events (run_id, at, type, from_status, to_status, reason, detail, pid, pos, set_json, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      runId,
      at,
      type,
      e.from || null,
      e.to || null,
      e.reason || null,
      detail ? JSON.stringify(detail) : null,
      process.pid,
      chained?.pos ?? null,
      chained && setJson ? JSON.stringify(setJson) : null,
      chained?.hash ?? null,
    ]);
    if (chained) await c.query('UPDATE runs SET record_count = record_count + 1, head_hash = $2 WHERE id = $1', [runId, chained.hash]);
  }

  private async requireRun(c: Client, runId: string): Promise<PgRunRow> {
    const r = await c.query<PgRunRow>('SELECT * FROM runs WHERE id = $1', [runId]);
    if (!r.rows[0]) throw new Error(`No run ${runId} in ${this.path}`);
    return r.rows[0];
  }

  /**
   * The run's row for a write, locked until the transaction ends: refused with LeaseLostError when
   * this store's hold on the run is stale (another desk took it over); a first write of a run
   * created elsewhere (a resume) takes the hold.
   */
  private async fencedRun(c: Client, runId: string): Promise<PgRunRow> {
    const row = await this.lockRun(c, runId);
    const taken = this.leases.check(runId, row.lease_epoch);
    if (taken !== null) {
      await c.query('UPDATE runs SET lease_epoch = $2 WHERE id = $1', [runId, taken]);
      return { ...row, lease_epoch: taken };
    }
    return row;
  }

  /**
   * Inside a write transaction: refuses when another run of this client on this portal is live.
   * The client's transaction lock makes the check and the write one step for every desk; a live
   * run of this desk whose process is gone does not count (markInterrupted ends it), a live run of
   * another desk does (the office queue takes it over when that desk stopped).
   */
  private async refuseBusyClient(c: Client, clientId: string, portal: string, runId: string): Promise<void> {
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CLIENT_LOCK_SPACE, `${clientId}/${portal}`]);
    const live = await c.query<PgRunRow>('SELECT * FROM runs WHERE client_id = $1 AND portal = $2 AND status = ANY($3::text[]) AND id <> $4', [clientId, portal, [...LIVE_STATUSES], runId]);
    for (const row of live.rows) if (!this.ownerGone(row)) throw new ClientBusyError(clientId, portal, row);
  }

  /** A live run's process is known to be gone: it ran on this machine, not in this store, and its process is not there. */
  private ownerGone(row: PgRunRow): boolean {
    const here = row.owner_host === this.host || row.owner_host === null;
    return here && row.owner_token !== this.ownerToken && row.owner_pid !== null && row.owner_pid !== process.pid && !processIsAlive(row.owner_pid);
  }

  /** Whether this store still holds the run (no other desk took it since this one last wrote it). */
  async holds(runId: string): Promise<boolean> {
    const r = await this.pool.query<{ lease_epoch: number }>('SELECT lease_epoch FROM runs WHERE id = $1', [runId]);
    return this.leases.holds(runId, r.rows[0]?.lease_epoch);
  }

  /** The run's row, locked until the transaction ends: one writer per run at a time, office-wide. */
  private async lockRun(c: Client, runId: string): Promise<PgRunRow> {
    const r = await c.query<PgRunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [runId]);
    if (!r.rows[0]) throw new Error(`No run ${runId} in ${this.path}`);
    return r.rows[0];
  }

  private async stepRows(c: Client, runId: string): Promise<StepRow[]> {
    return (await c.query<StepRow>('SELECT idx, pos, json, hash, screenshot_hash, after_hash, full_page_hash, observation_hash FROM steps WHERE run_id = $1 ORDER BY idx', [runId])).rows;
  }

  private async screenshotStates(c: Client, stepRows: readonly StepRow[]): Promise<Map<string, ScreenshotState>> {
    const hashes = [...new Set(stepRows.flatMap((s) => [s.screenshot_hash, s.after_hash, s.full_page_hash]).filter((h): h is string => h !== null))];
    const states = new Map<string, ScreenshotState>();
    if (!hashes.length) return states;
    const r = await c.query<{ sha256: string; png: Buffer | null }>('SELECT sha256, png FROM screenshots WHERE sha256 = ANY($1::text[])', [hashes]);
    for (const row of r.rows) states.set(row.sha256, row.png === null ? { state: 'purged' } : { state: 'present', png: row.png });
    return states;
  }

  private writable(): void {
    if (this.options.readOnly) throw new Error(`The store at ${this.path} was opened read-only; nothing was written`);
  }

  private async tx<T>(work: (c: Client) => Promise<T>): Promise<T> {
    this.writable();
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /** One consistent read of several queries (verify, export). */
  private async snapshot<T>(work: (c: Client) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }
}

interface StepRow {
  pos: number | null;
  idx: number;
  json: string;
  hash: string;
  screenshot_hash: string | null;
  after_hash: string | null;
  full_page_hash: string | null;
  observation_hash: string;
}
