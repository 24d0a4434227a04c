import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../base/canonical-json';
import type { CreateRunOptions, StepPictures } from '../shared/recorder';
import { FINAL_STATUSES, ProgressRecord, RunRecord, type RunStatus, StepRecord } from '../shared/run';
import { TraceRecord } from '../shared/trace';
import { CHAIN_DEFINITION, genesisHash, stepHash, verifyChain, type ScreenshotState, type VerifyResult } from './chain';
import { CHAIN_V2_DEFINITION, claimedRun, eventChainJson, eventHash, genesisRecord, receiptSha256In, verifyChainV2, type ChainedEvent, type ChainRecordRef, type StoredEvent } from './chain-v2';
import { ClientBusyError } from './client-busy';
import { RunLeases } from './lease';
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
import { SecretGuard } from './secret-guard';
import type { DialectName, SqlDriver, SqlRunner, WriteTransaction } from './sql-driver';
import type { Store } from './store-api';

export interface RunQuery {
  status?: RunStatus | readonly RunStatus[];
  /** Default 50, at most 1000. */
  limit?: number;
  offset?: number;
}

export interface PurgeOptions {
  /** Runs that ended longer ago than this are purged. */
  olderThanMs: number;
  now?: Date;
}

export interface PurgeResult {
  /** Runs that ended before this instant were in scope. */
  cutoff: string;
  /** Runs purged for the first time (each gets a `purged` audit row). */
  runs: number;
  /** Screenshot blobs dropped (tombstones kept), and their bytes. */
  screenshots: number;
  screenshotBytes: number;
  /** Raw model request/response rows deleted. */
  modelPayloads: number;
}

/** A planner call's raw request and response bodies, kept for debugging until retention drops them. */
export interface ModelPayload {
  request: unknown;
  response: unknown;
}

interface RunStoreOptions {
  /** The clock for audit rows and purge (tests pin it). */
  now: () => Date;
  /**
   * This desk's name in `owner_host`, on a database several desks share (a process id means
   * nothing across machines); null for a desk's own file, where every run is this desk's.
   */
  host: string | null;
  /** A folder on this desk for files kept beside the store (receipts). */
  localFolder?: string;
}

const NewRun = RunRecord.omit({ stepCount: true, usage: true, headHash: true });
const RunPatch = z.strictObject({ ...RunRecord.pick({ status: true, reason: true, applicationNumber: true, endedAt: true, caseJson: true, model: true }).shape, trace: TraceRecord }).partial();
type RunPatch = z.infer<typeof RunPatch>;

export const LIVE_STATUSES: readonly RunStatus[] = ['running', 'awaiting_approval', 'awaiting_input'];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** First key of the transaction lock a run's start takes on its client and portal (the office queue's slot locks use 19). */
const CLIENT_LOCK_SPACE = 29;

/** A run's row; `owner_host` only on a database several desks share. */
export interface StoredRun extends RunRow {
  owner_host?: string | null;
}

/**
 * The messages of a run's `receipt` step events, in step and event order: read out of the steps'
 * JSON text, which each dialect walks with functions of its own.
 */
const RECEIPT_MESSAGES: Readonly<Record<DialectName, string>> = {
  sqlite: `
    SELECT json_extract(e.value, '$.message') AS m FROM steps AS s, json_each(s.json, '$.events') AS e
    WHERE s.run_id = ? AND json_extract(e.value, '$.type') = 'receipt' ORDER BY s.idx, CAST(e.key AS INTEGER)`,
  postgres: `
    SELECT e.value ->> 'message' AS m
    FROM steps AS s
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.json::jsonb -> 'events') = 'array' THEN s.json::jsonb -> 'events' ELSE '[]'::jsonb END)
         WITH ORDINALITY AS e (value, ord)
    WHERE s.run_id = ? AND e.value ->> 'type' = 'receipt' ORDER BY s.idx, e.ord`,
};

/**
 * Runs, their hash-chained steps, content-addressed screenshots, approvals, progress records and
 * the run-level audit trail: the `Store` written once over a SQL driver (src/store/sql-driver.ts),
 * for a desk's SQLite file (`SqliteStore`) and an office's PostgreSQL database (`PgStore`) alike.
 * Each write is one transaction (a step, its screenshots, the run's counters and head in one);
 * a run's writes read its row locked, so two writers can never interleave records in one chain.
 */
export class RunStore<D extends SqlDriver = SqlDriver> implements Store {
  readonly kind: DialectName;
  readonly localFolder: string | undefined;
  /** Marks runs this store instance owns, so `markInterrupted` never touches them. */
  private readonly ownerToken = randomUUID();
  private readonly secrets = new SecretGuard();
  /** This store's holds on the runs it writes (fencing, src/store/lease.ts). */
  private readonly leases = new RunLeases();
  protected readonly now: () => Date;
  private readonly host: string | null;

  constructor(
    protected readonly driver: D,
    readonly path: string,
    options: RunStoreOptions,
  ) {
    this.kind = driver.dialect.name;
    this.now = options.now;
    this.host = options.host;
    this.localFolder = options.localFolder;
  }

  close(): void | Promise<void> {
    return this.driver.close();
  }

  /**
   * Registers a value that must never be written (a vault password, a one-time code, a security
   * answer): any later write containing it is refused whole. With `runId`, it applies to that
   * run's writes until the run reaches a final status; without, to every write. Values shorter
   * than 3 characters are ignored. Secrets are held in memory only.
   */
  registerSecret(secret: string, runId?: string): void {
    this.secrets.register(secret, runId);
  }

  // ---- RunRecorder ---------------------------------------------------------------------------

  async createRun(input: Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'>, options: CreateRunOptions = {}): Promise<void> {
    const run = NewRun.parse(input);
    this.secrets.check(run, run.id, `run ${run.id}`);
    const at = this.now().toISOString();
    await this.driver.write(async (tx) => {
      const exists = `Run ${run.id} already exists; nothing was changed (run ids are unique)`;
      if (await tx.get('SELECT id FROM runs WHERE id = ?', [run.id])) throw new Error(exists);
      if (options.oneLivePerClient) await this.refuseBusyClient(tx, run.clientId, run.portal, run.id);
      const row = columns({
        id: run.id,
        case_id: run.caseId,
        client_id: run.clientId,
        portal: run.portal,
        task: run.task,
        planner: run.planner,
        model: run.model ?? null,
        approve_mode: run.approveMode,
        status: run.status,
        reason: run.reason ?? null,
        application_number: run.applicationNumber ?? null,
        case_json: run.caseJson,
        layout: run.layout ?? null,
        started_at: run.startedAt,
        ended_at: run.endedAt ?? null,
        ...this.owner(),
        created_at: at,
        updated_at: at,
        chain_version: 2,
        genesis_json: canonicalJson(genesisRecord(run)),
        lease_epoch: 1,
      });
      // Another writer may have created the same id since the check: the key refuses it.
      if ((await tx.run(`INSERT INTO runs (${row.names}) VALUES (${row.marks}) ON CONFLICT (id) DO NOTHING`, row.values)) === 0) throw new Error(exists);
      const set: Record<string, unknown> = { status: run.status, reason: run.reason ?? null };
      if (run.applicationNumber !== undefined) set.applicationNumber = run.applicationNumber;
      if (run.endedAt !== undefined) set.endedAt = run.endedAt;
      await this.addEvent(tx, run.id, at, 'created', { to: run.status, reason: run.reason ?? null }, set);
    });
    this.leases.created(run.id);
  }

  /**
   * Writes one step, its screenshot (and its after and full-page pictures), the run's step count,
   * token totals and head hash in one transaction. Refuses (and writes nothing) when the step is
   * out of order, a picture's hash does not match its bytes, or it carries a registered secret.
   */
  async recordStep(input: StepRecord, screenshot: Uint8Array | null, pictures: StepPictures = {}): Promise<void> {
    const parsed = StepRecord.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`Refused to record a step: ${issue?.path.join('.') || 'the step'}: ${issue?.message ?? 'invalid'}. Nothing was written.`);
    }
    const step = parsed.data;
    const what = `step ${step.index} of run ${step.runId}`;
    this.secrets.check(step, step.runId, what);
    const pngs = [
      [pictureBytes(what, 'screenshot', 'screenshotHash', screenshot, step.screenshotHash), step.screenshotHash],
      [pictureBytes(what, 'after picture', 'afterScreenshotHash', pictures.after ?? null, step.afterScreenshotHash ?? null), step.afterScreenshotHash],
      [pictureBytes(what, 'full-page picture', 'fullPageHash', pictures.fullPage ?? null, step.fullPageHash ?? null), step.fullPageHash],
    ] as const;
    const json = canonicalJson(step);
    await this.driver.write(async (tx) => {
      const run = await this.fencedRun(tx, step.runId);
      if (step.index !== run.step_count) {
        throw new Error(`Refused to record step ${step.index} of run ${step.runId}: the run has ${run.step_count} steps, so the next one is step ${run.step_count}. Nothing was written.`);
      }
      if (run.step_count > 0 && run.head_hash === null) throw new Error(`Run ${step.runId} has steps but no head hash; run verifyRun before recording more`);
      const v2 = run.chain_version === 2;
      const prev = run.head_hash ?? (v2 && run.genesis_json !== null ? sha256Hex(run.genesis_json) : genesisHash(identityOf(run)));
      const at = this.now().toISOString();
      for (const [png, sha256] of pngs) {
        if (!png || !sha256) continue;
        // A purged blob seen again gets its bytes back (same hash, so same bytes).
        await tx.run(
          `INSERT INTO screenshots (sha256, png, bytes, first_seen_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (sha256) DO UPDATE SET png = excluded.png, purged_at = NULL WHERE screenshots.png IS NULL`,
          [sha256, png, png.byteLength, at],
        );
      }
      const hash = stepHash(prev, json, step.screenshotHash);
      const row = columns({
        run_id: step.runId,
        idx: step.index,
        pos: v2 ? run.record_count : null,
        json,
        observation_hash: step.observationHash,
        screenshot_hash: step.screenshotHash,
        after_hash: step.afterScreenshotHash ?? null,
        full_page_hash: step.fullPageHash ?? null,
        hash,
        recorded_at: at,
      });
      await tx.run(`INSERT INTO steps (${row.names}) VALUES (${row.marks})`, row.values);
      const u = step.model?.usage;
      const owner = columns({ head_hash: hash, ...this.owner(), updated_at: at });
      await tx.run(
        `UPDATE runs SET step_count = step_count + 1,
                input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
                cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
                cost_usd = cost_usd + ?, record_count = record_count + 1, ${owner.set}
         WHERE id = ?`,
        [u?.inputTokens ?? 0, u?.outputTokens ?? 0, u?.cacheReadTokens ?? 0, u?.cacheWriteTokens ?? 0, u?.costUsd ?? 0, ...owner.values, step.runId],
      );
    });
  }

  /**
   * Applies a patch and writes an audit row for what changed (status with its reason; names of
   * other fields, never their values). A status change without a `reason` clears the old reason;
   * `reason: undefined` clears it too. Other fields given as undefined are left as they are.
   * A final status (done, failed, blocked) never changes again.
   */
  async updateRun(runId: string, patch: Partial<Pick<RunRecord, 'status' | 'reason' | 'applicationNumber' | 'endedAt' | 'caseJson' | 'model'>> & { trace?: TraceRecord }): Promise<void> {
    const checked = RunPatch.parse(patch);
    this.secrets.check(checked, runId, `an update of run ${runId}`);
    await this.driver.write((tx) => this.updateRunTx(tx, runId, checked));
    if (checked.status && FINAL_STATUSES.includes(checked.status)) this.secrets.release(runId);
  }

  /** See Store.resumeRun: the client's lock, the run's row, its liveness and the status change in one transaction. */
  async resumeRun(runId: string, reason: string): Promise<void> {
    const patch = RunPatch.parse({ status: 'running', reason });
    await this.driver.write(async (tx) => {
      const found = await this.requireRun(tx, runId);
      await tx.lock(CLIENT_LOCK_SPACE, `${found.client_id}/${found.portal}`);
      const row = await this.lockRun(tx, runId);
      if (LIVE_STATUSES.includes(row.status as RunStatus) && !this.ownerGone(row, 'resume')) throw new ClientBusyError(row.client_id, row.portal, row, runId);
      await this.refuseBusyClient(tx, row.client_id, row.portal, runId);
      this.leases.resuming(runId);
      await this.updateRunTx(tx, runId, patch);
    });
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = await this.driver.get<StoredRun>('SELECT * FROM runs WHERE id = ?', [runId]);
    return row ? runFromRow(row) : null;
  }

  /** The run's steps in order, each parsed back through the StepRecord schema. */
  async listSteps(runId: string): Promise<StepRecord[]> {
    const rows = await this.driver.all<{ json: string }>('SELECT json FROM steps WHERE run_id = ? ORDER BY idx', [runId]);
    return rows.map((row) => StepRecord.parse(JSON.parse(row.json)));
  }

  async getProgress(clientId: string, portal: string, task: string): Promise<ProgressRecord | null> {
    const row = await this.driver.get<ProgressRow>('SELECT * FROM progress WHERE client_id = ? AND portal = ? AND task = ?', [clientId, portal, task]);
    return row ? progressFromRow(row) : null;
  }

  /** Fenced by the writing run (`runId`): refused, nothing written, when this store's hold on it is stale. */
  async saveProgress(input: ProgressRecord, runId?: string): Promise<void> {
    const p = ProgressRecord.parse(input);
    this.secrets.check(p, runId ?? null, `the progress of ${p.clientId} on ${p.portal} (${p.task})`);
    await this.driver.write(async (tx) => {
      if (runId !== undefined) await this.fencedRun(tx, runId);
      await upsert(tx, 'progress', ['client_id', 'portal', 'task'], {
        client_id: p.clientId,
        portal: p.portal,
        task: p.task,
        case_id: p.caseId,
        sections_done: JSON.stringify(p.sectionsDone),
        draft_id: p.draftId ?? null,
        application_number: p.applicationNumber ?? null,
        submit_attempted_at: p.submitAttemptedAt ?? null,
        updated_at: p.updatedAt,
      });
    });
  }

  // ---- Replay and audit ----------------------------------------------------------------------

  /** Newest first. */
  async listRuns(query: RunQuery = {}): Promise<RunRecord[]> {
    const d = this.driver.dialect;
    const statuses = query.status === undefined ? null : typeof query.status === 'string' ? [query.status] : [...query.status];
    const limit = Math.min(Math.max(Math.floor(query.limit ?? 50), 0), 1000);
    const offset = Math.max(Math.floor(query.offset ?? 0), 0);
    const rows = await this.driver.all<StoredRun>(
      `SELECT * FROM runs ${statuses ? `WHERE ${d.inList('status')}` : ''} ORDER BY started_at DESC, ${d.insertionOrder} DESC LIMIT ? OFFSET ?`,
      [...(statuses ? [d.list(statuses)] : []), limit, offset],
    );
    return rows.map(runFromRow);
  }

  async getStep(runId: string, index: number): Promise<StepRecord | null> {
    const row = await this.driver.get<{ json: string }>('SELECT json FROM steps WHERE run_id = ? AND idx = ?', [runId, index]);
    return row ? StepRecord.parse(JSON.parse(row.json)) : null;
  }

  /** The PNG with this sha256, or null when unknown or purged. */
  async getScreenshot(sha256: string): Promise<Uint8Array | null> {
    const row = await this.driver.get<{ png: Buffer | null }>('SELECT png FROM screenshots WHERE sha256 = ?', [sha256]);
    return row?.png ?? null;
  }

  /** Every approval decision in the run, in step and action order. */
  async approvals(runId: string): Promise<ApprovalEntry[]> {
    return (await this.driver.all<ApprovalRow>('SELECT * FROM approvals WHERE run_id = ? ORDER BY step, action_index', [runId])).map(approvalFromRow);
  }

  /** The run's audit trail, oldest first. */
  async auditTrail(runId: string): Promise<RunEvent[]> {
    return (await this.events(this.driver, runId)).map(eventFromRow);
  }

  /**
   * Marks runs left running or awaiting the clerk by a process of this desk that is gone as
   * `interrupted` (resumable), each with an audit row. Call it at startup. Runs owned by a live
   * process (another console or a CLI run on the same file) and by this store are left alone, and
   * so are another desk's on a shared database: a process id means nothing across machines (a desk
   * that died with a run is taken over through the office queue). One store per process: a run
   * owned by another store in this same process counts as orphaned.
   */
  async markInterrupted(): Promise<string[]> {
    const d = this.driver.dialect;
    const at = this.now().toISOString();
    const thisDesk = this.host === null ? '' : ' AND (owner_host = ? OR owner_host IS NULL)';
    return this.driver.write(async (tx) => {
      const marked: string[] = [];
      const live = await tx.all<StoredRun>(`SELECT * FROM runs WHERE ${d.inList('status')}${thisDesk} ORDER BY ${d.insertionOrder}${d.forUpdate}`, [
        d.list(LIVE_STATUSES),
        ...(this.host === null ? [] : [this.host]),
      ]);
      for (const row of live) {
        if (!this.ownerGone(row, 'interrupt')) continue;
        const reason = `Interrupted: the process running it stopped${row.owner_pid !== null ? ` (pid ${row.owner_pid})` : ''} after step ${row.step_count}; resume to continue`;
        await this.interrupt(tx, row, reason, at, { ownerPid: row.owner_pid, steps: row.step_count });
        marked.push(row.id);
      }
      return marked;
    });
  }

  // ---- Tamper evidence -----------------------------------------------------------------------

  /**
   * Walks the run's hash chain from its genesis and names the first record that does not hold
   * (and, for a run field the chain does not vouch for, the field). Runs recorded before schema 4
   * are checked in chain format 1 and say so (`format: 1`, `covers`).
   */
  async verifyRun(runId: string, options: { onRecord?: (record: ChainRecordRef) => void } = {}): Promise<VerifyResult> {
    return this.driver.read(async (tx) => {
      const row = await this.requireRun(tx, runId);
      const stepRows = await this.stepRows(tx, runId);
      const steps = stepRows.map((s) => ({
        index: s.idx,
        pos: s.pos,
        json: s.json,
        hash: s.hash,
        columns: { screenshotHash: s.screenshot_hash, afterScreenshotHash: s.after_hash, fullPageHash: s.full_page_hash, observationHash: s.observation_hash },
      }));
      const shots = await this.screenshotStates(tx, stepRows);
      const screenshot = (sha256: string): ScreenshotState => shots.get(sha256) ?? { state: 'missing' };
      if (row.chain_version === 2) {
        return verifyChainV2({
          genesis: row.genesis_json,
          run: claimedRun(runFromRow(row), row.record_count),
          steps,
          events: (await this.events(tx, runId)).map(storedEventOf),
          screenshot,
          onRecord: options.onRecord,
        });
      }
      const v1 = verifyChain({ identity: identityOf(row), stepCount: row.step_count, headHash: row.head_hash, steps, screenshot });
      if (v1.ok) stepRows.forEach((s, pos) => options.onRecord?.({ pos, hash: s.hash, kind: 'step', type: 'step' }));
      return v1;
    });
  }

  /** The run as one self-contained JSON object; `verifyExport` checks it offline. */
  async exportRun(runId: string): Promise<RunExport> {
    const exportedAt = this.now().toISOString();
    return this.driver.read(async (tx) => {
      const row = await this.requireRun(tx, runId);
      const stepRows = await this.stepRows(tx, runId);
      const states = await this.screenshotStates(tx, stepRows);
      const screenshots: Record<string, string | null> = {};
      for (const sha256 of stepRows.flatMap((s) => [s.screenshot_hash, s.after_hash, s.full_page_hash])) {
        if (sha256 === null || Object.hasOwn(screenshots, sha256)) continue;
        const state = states.get(sha256) ?? { state: 'missing' };
        if (state.state === 'present') screenshots[sha256] = Buffer.from(state.png).toString('base64');
        else if (state.state === 'purged') screenshots[sha256] = null;
      }
      const run = runFromRow(row);
      // Parsed without the schema, so the export carries exactly the bytes the chain hashed.
      const steps = stepRows.map((s) => JSON.parse(s.json) as StepRecord);
      const auditTrail = (await this.events(tx, runId)).map(eventFromRow);
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

  /** Keeps a planner call's raw request/response for debugging (outside the chain; purged with the run). */
  async recordModelPayload(runId: string, stepIndex: number, payload: ModelPayload): Promise<void> {
    this.secrets.check(payload, runId, `the model payload of step ${stepIndex} of run ${runId}`);
    // The hold's check and the write are one transaction, as for a step.
    await this.driver.write(async (tx) => {
      await this.fencedRun(tx, runId);
      await upsert(tx, 'model_payloads', ['run_id', 'idx'], {
        run_id: runId,
        idx: stepIndex,
        request: canonicalJson(payload.request ?? null),
        response: payload.response === undefined ? null : canonicalJson(payload.response),
        recorded_at: this.now().toISOString(),
      });
    });
  }

  async getModelPayload(runId: string, stepIndex: number): Promise<ModelPayload | null> {
    const row = await this.driver.get<{ request: string; response: string | null }>('SELECT request, response FROM model_payloads WHERE run_id = ? AND idx = ?', [runId, stepIndex]);
    return row ? { request: JSON.parse(row.request) as unknown, response: row.response === null ? null : (JSON.parse(row.response) as unknown) } : null;
  }

  /**
   * Retention: for runs that ENDED before `now - olderThanMs`, drops screenshot bytes (keeping a
   * tombstone with the hash, so the chain still verifies) and raw model payloads. A screenshot
   * still used by a step of a run outside the cutoff keeps its bytes. Step JSON, digests, approvals
   * and the audit trail stay. Freed space goes back to the file system (SQLite's incremental vacuum).
   */
  async purge(options: PurgeOptions): Promise<PurgeResult> {
    if (!Number.isFinite(options.olderThanMs) || options.olderThanMs < 0) throw new RangeError('purge: olderThanMs must be a non-negative number of milliseconds');
    const d = this.driver.dialect;
    const now = options.now ?? this.now();
    const cutoffMs = now.getTime() - options.olderThanMs;
    const cutoff = new Date(cutoffMs).toISOString();
    const at = now.toISOString();
    const result = await this.driver.write(async (tx): Promise<PurgeResult> => {
      const ended = await tx.all<{ id: string; ended_at: string; purged_at: string | null }>('SELECT id, ended_at, purged_at FROM runs WHERE ended_at IS NOT NULL ORDER BY id');
      const scope: string[] = [];
      const newlyPurged: string[] = [];
      for (const r of ended) {
        const end = Date.parse(r.ended_at);
        if (!Number.isFinite(end) || end >= cutoffMs) continue;
        scope.push(r.id);
        if (r.purged_at === null) newlyPurged.push(r.id);
      }
      const inScope = d.list(scope);
      const blobs = await tx.all<{ sha256: string; bytes: number }>(
        `SELECT sha256, bytes FROM screenshots
         WHERE png IS NOT NULL
           AND sha256 IN (SELECT sha256 FROM step_screenshots WHERE ${d.inList('run_id')})
           AND NOT EXISTS (SELECT 1 FROM step_screenshots AS s WHERE s.sha256 = screenshots.sha256 AND NOT (${d.inList('s.run_id')}))${d.forUpdate}`,
        [inScope, inScope],
      );
      if (blobs.length) await tx.run(`UPDATE screenshots SET png = NULL, purged_at = ? WHERE ${d.inList('sha256')}`, [at, d.list(blobs.map((b) => b.sha256))]);
      const modelPayloads = await tx.run(`DELETE FROM model_payloads WHERE ${d.inList('run_id')}`, [inScope]);
      // Each run whose screenshots went gets a chained record naming them (so they verify as
      // purged); a run purged for the first time gets one even when nothing of it was dropped.
      const dropped = new Set(blobs.map((b) => b.sha256));
      for (const id of scope) {
        const shots = await tx.all<{ h: string }>('SELECT DISTINCT sha256 AS h FROM step_screenshots WHERE run_id = ?', [id]);
        const removed = shots.map((r) => r.h).filter((h) => dropped.has(h)).sort();
        const first = newlyPurged.includes(id);
        if (!first && removed.length === 0) continue;
        if (first) await tx.run('UPDATE runs SET purged_at = ? WHERE id = ?', [at, id]);
        await this.addEvent(tx, id, at, 'purged', { detail: { cutoff, olderThanMs: options.olderThanMs, screenshots: removed.length } }, { screenshots: removed });
      }
      return { cutoff, runs: newlyPurged.length, screenshots: blobs.length, screenshotBytes: blobs.reduce((n, b) => n + b.bytes, 0), modelPayloads };
    });
    if (result.screenshots + result.modelPayloads > 0) await this.driver.reclaimSpace();
    return result;
  }

  /** Whether this store still holds the run (no other store took it since this one last wrote it). */
  async holds(runId: string): Promise<boolean> {
    const row = await this.driver.get<{ lease_epoch: number }>('SELECT lease_epoch FROM runs WHERE id = ?', [runId]);
    return this.leases.holds(runId, row?.lease_epoch);
  }

  // ---- Inside transactions -------------------------------------------------------------------

  private async updateRunTx(tx: WriteTransaction, runId: string, patch: RunPatch): Promise<void> {
    const run = await this.fencedRun(tx, runId);
    const from = run.status as RunStatus;
    const to = patch.status ?? from;
    const statusChanged = to !== from;
    if (statusChanged && FINAL_STATUSES.includes(from)) {
      throw new Error(`Run ${runId} is ${from}, a final status; it cannot become ${to}. Nothing was changed; start a new run instead.`);
    }
    // The reason explains the status: a new status without a reason clears the old one.
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
    // A live status makes this process the run's owner; otherwise the owner stays as it was.
    const row = columns({ ...next, ...(live ? this.owner() : {}), updated_at: at });
    await tx.run(`UPDATE runs SET ${row.set} WHERE id = ?`, [...row.values, runId]);
    const reasonChanged = reason !== run.reason;
    // The values set, for the chain (the case copy by its sha256: the audit trail never holds case values).
    const set: Record<string, unknown> = {};
    if (statusChanged || patch.status !== undefined) set.status = to;
    if (reasonChanged || statusChanged) set.reason = reason;
    if (next.application_number !== run.application_number) set.applicationNumber = next.application_number;
    if (next.ended_at !== run.ended_at) set.endedAt = next.ended_at;
    if (next.model !== run.model) set.model = next.model;
    if (next.case_json !== run.case_json) set.caseJsonSha256 = sha256Hex(next.case_json);
    if (statusChanged || (patch.status !== undefined && reasonChanged)) {
      const type: RunEventType = statusChanged && from === 'interrupted' && live ? 'resumed' : 'status';
      await this.addEvent(tx, runId, at, type, { from, to, reason, detail: changed.length ? { fields: changed } : undefined }, set);
    } else if (changed.length > 0 || reasonChanged) {
      await this.addEvent(tx, runId, at, 'updated', { reason, detail: { fields: reasonChanged ? ['reason', ...changed] : changed } }, set);
    }
    if (statusChanged && FINAL_STATUSES.includes(to)) await this.addOutcome(tx, runId, at, patch.trace);
  }

  /** The chained final record of a run: its outcome, what it cost, how many steps, the receipt's hash. */
  private async addOutcome(tx: WriteTransaction, runId: string, at: string, trace?: TraceRecord): Promise<void> {
    const run = await this.requireRun(tx, runId);
    const messages = await tx.all<{ m: string | null }>(RECEIPT_MESSAGES[this.driver.dialect.name], [runId]);
    const receipt = messages
      .map((r) => (r.m === null ? null : receiptSha256In(r.m)))
      .filter((h): h is string => h !== null)
      .at(-1);
    const r = runFromRow(run);
    await this.addEvent(
      tx,
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

  /**
   * Appends one audit-trail event. On a chain-v2 run it is the next record of the run's chain:
   * hashed onto the head with the values it `set`, and the head moves to it.
   */
  private async addEvent(
    tx: WriteTransaction,
    runId: string,
    at: string,
    type: RunEventType,
    e: { from?: string; to?: string; reason?: string | null; detail?: Record<string, unknown> },
    set: Record<string, unknown>,
  ): Promise<void> {
    const run = await this.requireRun(tx, runId);
    // Normalised through JSON once, so the chained text is what reading the row back gives.
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
    const row = columns({
      run_id: runId,
      at,
      type,
      from_status: e.from || null,
      to_status: e.to || null,
      reason: e.reason || null,
      detail: detail ? JSON.stringify(detail) : null,
      pid: process.pid,
      pos: chained?.pos ?? null,
      set_json: chained && setJson ? JSON.stringify(setJson) : null,
      hash: chained?.hash ?? null,
    });
    await tx.run(`INSERT INTO run_events (${row.names}) VALUES (${row.marks})`, row.values);
    if (chained) await tx.run('UPDATE runs SET record_count = record_count + 1, head_hash = ? WHERE id = ?', [chained.hash, runId]);
  }

  /** The run becomes `interrupted`, and its epoch moves on: the holder it had can write nothing more into it (fencing). */
  protected async interrupt(tx: WriteTransaction, row: StoredRun, reason: string, at: string, detail: Record<string, unknown>): Promise<void> {
    await tx.run('UPDATE runs SET status = ?, reason = ?, updated_at = ?, lease_epoch = lease_epoch + 1 WHERE id = ?', ['interrupted', reason, at, row.id]);
    await this.addEvent(tx, row.id, at, 'interrupted', { from: row.status, to: 'interrupted', reason, detail }, { status: 'interrupted', reason });
  }

  /**
   * The run's row for a write, locked until the transaction ends: refused with LeaseLostError when
   * this store's hold on the run is stale (another store took it over); a first write of a run
   * created elsewhere (a resume) takes the hold.
   */
  private async fencedRun(tx: WriteTransaction, runId: string): Promise<StoredRun> {
    const row = await this.lockRun(tx, runId);
    const taken = this.leases.check(runId, row.lease_epoch);
    if (taken !== null) {
      await tx.run('UPDATE runs SET lease_epoch = ? WHERE id = ?', [taken, runId]);
      return { ...row, lease_epoch: taken };
    }
    return row;
  }

  /**
   * Inside a write transaction: refuses when another run of this client on this portal is live
   * under a process still there. The client's lock makes the check and the write one step for
   * every writer of the database.
   */
  private async refuseBusyClient(tx: WriteTransaction, clientId: string, portal: string, runId: string): Promise<void> {
    const d = this.driver.dialect;
    await tx.lock(CLIENT_LOCK_SPACE, `${clientId}/${portal}`);
    const live = await tx.all<StoredRun>(`SELECT * FROM runs WHERE client_id = ? AND portal = ? AND ${d.inList('status')} AND id <> ?`, [clientId, portal, d.list(LIVE_STATUSES), runId]);
    for (const row of live) if (!this.ownerGone(row, 'start')) throw new ClientBusyError(clientId, portal, row);
  }

  /**
   * Whether the process of a live run is known to be gone, so the run may be interrupted, resumed
   * or run beside. Never a run of this store, nor one of another desk (its process id means
   * nothing here). A desk's own file also counts a run with no process as gone, and when resuming,
   * one of another store in this very process; a database several desks share does not know
   * those to be gone (only `markInterrupted`, which looks at this desk's runs alone, does).
   */
  private ownerGone(row: StoredRun, purpose: 'start' | 'resume' | 'interrupt'): boolean {
    if (row.owner_token === this.ownerToken) return false;
    if (this.host !== null && (row.owner_host ?? null) !== null && row.owner_host !== this.host) return false;
    const ownFile = this.host === null;
    if (row.owner_pid === null) return purpose === 'interrupt' || ownFile;
    if (row.owner_pid === process.pid) return purpose === 'interrupt' || (purpose === 'resume' && ownFile);
    return !processIsAlive(row.owner_pid);
  }

  /** The columns that name a run's owner: this process, this store and, on a shared database, this desk. */
  private owner(): Record<string, unknown> {
    return { owner_pid: process.pid, owner_token: this.ownerToken, ...(this.host === null ? {} : { owner_host: this.host }) };
  }

  private async requireRun(tx: SqlRunner, runId: string): Promise<StoredRun> {
    const row = await tx.get<StoredRun>('SELECT * FROM runs WHERE id = ?', [runId]);
    if (!row) throw new Error(`No run ${runId} in ${this.path}`);
    return row;
  }

  /** The run's row, locked until the transaction ends: one writer per run at a time. */
  protected async lockRun(tx: WriteTransaction, runId: string): Promise<StoredRun> {
    const row = await tx.get<StoredRun>(`SELECT * FROM runs WHERE id = ?${this.driver.dialect.forUpdate}`, [runId]);
    if (!row) throw new Error(`No run ${runId} in ${this.path}`);
    return row;
  }

  private events(sql: SqlRunner, runId: string): Promise<RunEventRow[]> {
    return sql.all<RunEventRow>('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq', [runId]);
  }

  private stepRows(tx: SqlRunner, runId: string): Promise<StepRow[]> {
    return tx.all<StepRow>('SELECT idx, pos, json, hash, screenshot_hash, after_hash, full_page_hash, observation_hash FROM steps WHERE run_id = ? ORDER BY idx', [runId]);
  }

  private async screenshotStates(tx: SqlRunner, stepRows: readonly StepRow[]): Promise<Map<string, ScreenshotState>> {
    const d = this.driver.dialect;
    const hashes = [...new Set(stepRows.flatMap((s) => [s.screenshot_hash, s.after_hash, s.full_page_hash]).filter((h): h is string => h !== null))];
    const states = new Map<string, ScreenshotState>();
    if (!hashes.length) return states;
    const rows = await tx.all<{ sha256: string; png: Buffer | null }>(`SELECT sha256, png FROM screenshots WHERE ${d.inList('sha256')}`, [d.list(hashes)]);
    for (const row of rows) states.set(row.sha256, row.png === null ? { state: 'purged' } : { state: 'present', png: row.png });
    return states;
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

/** A row's columns and their values, for an INSERT or an UPDATE written once: a stored field is one more key. */
function columns(values: Record<string, unknown>): { names: string; marks: string; set: string; values: unknown[] } {
  const names = Object.keys(values);
  return { names: names.join(', '), marks: names.map(() => '?').join(', '), set: names.map((n) => `${n} = ?`).join(', '), values: Object.values(values) };
}

/** Inserts the row, or replaces the values of the row with the same `key` columns. */
async function upsert(tx: WriteTransaction, table: string, key: readonly string[], values: Record<string, unknown>): Promise<void> {
  const row = columns(values);
  const replaced = Object.keys(values)
    .filter((n) => !key.includes(n))
    .map((n) => `${n} = excluded.${n}`)
    .join(', ');
  await tx.run(`INSERT INTO ${table} (${row.names}) VALUES (${row.marks}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${replaced}`, row.values);
}

/** Checks one picture against the hash its step names: a PNG whose sha256 it is, or neither. */
function pictureBytes(what: string, name: string, field: string, bytes: Uint8Array | null, named: string | null): Buffer | null {
  if (!bytes) {
    if (named !== null) throw new Error(`Refused to record ${what}: it names ${name} ${named} (${field}) but no PNG was given. Nothing was written.`);
    return null;
  }
  const png = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error(`Refused to record ${what}: its ${name} is not a PNG. Nothing was written.`);
  const actual = sha256Hex(png);
  if (actual !== named) throw new Error(`Refused to record ${what}: its ${field} ${named ?? 'null'} is not the sha256 of the PNG given (${actual}). Nothing was written.`);
  return png;
}

function identityOf(row: RunRow) {
  return { id: row.id, caseId: row.case_id, clientId: row.client_id, portal: row.portal, task: row.task, startedAt: row.started_at };
}

/** An event row as the chain reads it; a row whose JSON columns no longer parse reads as null. */
function storedEventOf(row: RunEventRow): StoredEvent {
  let event: ChainedEvent | null = null;
  try {
    const e = eventFromRow(row);
    event = { runId: e.runId, pos: e.pos ?? -1, at: e.at, type: e.type };
    if (e.fromStatus) event.fromStatus = e.fromStatus;
    if (e.toStatus) event.toStatus = e.toStatus;
    if (e.reason) event.reason = e.reason;
    if (e.detail) event.detail = e.detail;
    if (e.pid !== undefined) event.pid = e.pid;
    if (e.set) event.set = e.set;
  } catch {
    event = null;
  }
  return { event, hash: row.hash, pos: row.pos, type: row.type };
}

function fieldName(column: 'application_number' | 'ended_at' | 'case_json' | 'model'): string {
  return { application_number: 'applicationNumber', ended_at: 'endedAt', case_json: 'caseJson', model: 'model' }[column];
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
