import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../base/canonical-json';
import type { CreateRunOptions, RunRecorder, StepPictures } from '../shared/recorder';
import { FINAL_STATUSES, ProgressRecord, RunRecord, type RunStatus, StepRecord } from '../shared/run';
import { TraceRecord } from '../shared/trace';
import { CHAIN_DEFINITION, genesisHash, stepHash, verifyChain, type ScreenshotState, type VerifyResult } from './chain';
import { CHAIN_V2_DEFINITION, claimedRun, eventChainJson, eventHash, genesisRecord, receiptSha256In, verifyChainV2, type ChainedEvent, type ChainRecordRef, type StoredEvent } from './chain-v2';
import { openDatabase, type DatabaseOptions } from './database';
import { schemaVersion } from './migrations';
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

export interface StoreOptions extends DatabaseOptions {
  /** The clock for audit rows and purge (tests pin it). */
  now?: () => Date;
}

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

const NewRun = RunRecord.omit({ stepCount: true, usage: true, headHash: true });
const RunPatch = z.strictObject({ ...RunRecord.pick({ status: true, reason: true, applicationNumber: true, endedAt: true, caseJson: true, model: true }).shape, trace: TraceRecord }).partial();
type RunPatch = z.infer<typeof RunPatch>;

const LIVE_STATUSES: readonly RunStatus[] = ['running', 'awaiting_approval', 'awaiting_input'];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Opens the database at `path` (see `defaultDbPath`), upgrading its schema, and returns the store. */
export function openStore(path: string, options: StoreOptions = {}): Store {
  return new Store(openDatabase(path, options), path, options.now ?? (() => new Date()));
}

/**
 * Runs, their hash-chained steps, content-addressed screenshots, approvals, progress records and
 * the run-level audit trail, in one SQLite file. Implements the engine's RunRecorder port.
 *
 * The methods are async although better-sqlite3 is synchronous: callers keep working unchanged
 * if the store later moves off the Electron main thread.
 */
export class Store implements RunRecorder {
  /** Marks runs this Store instance owns, so `markInterrupted` never touches them. */
  private readonly ownerToken = randomUUID();
  private readonly secrets = new SecretGuard();
  /** This store's holds on the runs it writes (fencing, src/store/lease.ts). */
  private readonly leases = new RunLeases();
  private readonly sql: Statements;
  private readonly writeStep: Database.Transaction<(step: StepRecord, json: string, pngs: StepPngs) => void>;
  private readonly writeStatus: Database.Transaction<(runId: string, patch: RunPatch) => void>;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    private readonly now: () => Date,
  ) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS purge_scope (run_id TEXT PRIMARY KEY)');
    this.sql = prepareStatements(db);
    this.writeStep = db.transaction((step: StepRecord, json: string, pngs: StepPngs) => this.writeStepTx(step, json, pngs));
    this.writeStatus = db.transaction((runId: string, patch: RunPatch) => this.updateRunTx(runId, patch));
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
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
    this.db.transaction(() => {
      if (this.sql.runRow.get(run.id)) throw new Error(`Run ${run.id} already exists; nothing was changed (run ids are unique)`);
      if (options.oneLivePerClient) this.refuseBusyClient(run.clientId, run.portal, run.id);
      this.sql.insertRun.run({
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
        owner_pid: process.pid,
        owner_token: this.ownerToken,
        genesis_json: canonicalJson(genesisRecord(run)),
        at,
      });
      const set: Record<string, unknown> = { status: run.status, reason: run.reason ?? null };
      if (run.applicationNumber !== undefined) set.applicationNumber = run.applicationNumber;
      if (run.endedAt !== undefined) set.endedAt = run.endedAt;
      this.addEvent(run.id, at, 'created', { to: run.status, reason: run.reason ?? null }, set);
    }).immediate();
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
    const pngs: StepPngs = {
      before: pictureBytes(what, 'screenshot', 'screenshotHash', screenshot, step.screenshotHash),
      after: pictureBytes(what, 'after picture', 'afterScreenshotHash', pictures.after ?? null, step.afterScreenshotHash ?? null),
      fullPage: pictureBytes(what, 'full-page picture', 'fullPageHash', pictures.fullPage ?? null, step.fullPageHash ?? null),
    };
    this.writeStep.immediate(step, canonicalJson(step), pngs);
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
    this.writeStatus.immediate(runId, checked);
    if (checked.status && FINAL_STATUSES.includes(checked.status)) this.secrets.release(runId);
  }

  /** See Store.resumeRun: the run's own liveness, the client's lock and the status change in one transaction. */
  async resumeRun(runId: string, reason: string): Promise<void> {
    const patch = RunPatch.parse({ status: 'running', reason });
    this.db.transaction(() => {
      const row = this.requireRun(runId);
      const ownerAlive = row.owner_token === this.ownerToken || (row.owner_pid !== null && row.owner_pid !== process.pid && processIsAlive(row.owner_pid));
      if (LIVE_STATUSES.includes(row.status as RunStatus) && ownerAlive) throw new ClientBusyError(row.client_id, row.portal, row, runId);
      this.refuseBusyClient(row.client_id, row.portal, runId);
      this.leases.resuming(runId);
      this.updateRunTx(runId, patch);
    }).immediate();
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = this.sql.runRow.get(runId) as RunRow | undefined;
    return row ? runFromRow(row) : null;
  }

  /** The run's steps in order, each parsed back through the StepRecord schema. */
  async listSteps(runId: string): Promise<StepRecord[]> {
    return (this.sql.stepJsons.all(runId) as string[]).map((json) => StepRecord.parse(JSON.parse(json)));
  }

  async getProgress(clientId: string, portal: string, task: string): Promise<ProgressRecord | null> {
    const row = this.sql.progressRow.get(clientId, portal, task) as ProgressRow | undefined;
    return row ? progressFromRow(row) : null;
  }

  /** Fenced by the writing run (`runId`): refused, nothing written, when this store's hold on it is stale. */
  async saveProgress(input: ProgressRecord, runId?: string): Promise<void> {
    const p = ProgressRecord.parse(input);
    this.secrets.check(p, runId ?? null, `the progress of ${p.clientId} on ${p.portal} (${p.task})`);
    this.db.transaction(() => {
      if (runId !== undefined) this.fencedRun(runId);
      this.sql.upsertProgress.run({
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
    }).immediate();
  }

  // ---- Replay and audit ----------------------------------------------------------------------

  /** Newest first. */
  async listRuns(query: RunQuery = {}): Promise<RunRecord[]> {
    const statuses = query.status === undefined ? null : JSON.stringify(typeof query.status === 'string' ? [query.status] : [...query.status]);
    const limit = Math.min(Math.max(Math.floor(query.limit ?? 50), 0), 1000);
    const offset = Math.max(Math.floor(query.offset ?? 0), 0);
    return (this.sql.listRuns.all(statuses, statuses, limit, offset) as RunRow[]).map(runFromRow);
  }

  async getStep(runId: string, index: number): Promise<StepRecord | null> {
    const json = this.sql.stepJson.get(runId, index) as string | undefined;
    return json === undefined ? null : StepRecord.parse(JSON.parse(json));
  }

  /** The PNG with this sha256, or null when unknown or purged. */
  async getScreenshot(sha256: string): Promise<Uint8Array | null> {
    const png = this.sql.screenshotPng.get(sha256) as Buffer | null | undefined;
    return png ?? null;
  }

  /** Every approval decision in the run, in step and action order. */
  async approvals(runId: string): Promise<ApprovalEntry[]> {
    return (this.sql.approvals.all(runId) as ApprovalRow[]).map(approvalFromRow);
  }

  /** The run's audit trail, oldest first. */
  async auditTrail(runId: string): Promise<RunEvent[]> {
    return (this.sql.events.all(runId) as RunEventRow[]).map(eventFromRow);
  }

  /**
   * Marks runs left running or awaiting the clerk by a process that is gone as `interrupted`
   * (resumable), each with an audit row. Call it at startup. Runs owned by a live process —
   * another console or a CLI run on the same file — and by this Store are left alone.
   * One Store per process: a run owned by another Store in this same process counts as orphaned.
   */
  async markInterrupted(): Promise<string[]> {
    const at = this.now().toISOString();
    return this.db.transaction(() => {
      const marked: string[] = [];
      for (const row of this.sql.liveRuns.all(JSON.stringify(LIVE_STATUSES)) as RunRow[]) {
        if (row.owner_token === this.ownerToken) continue;
        if (row.owner_pid !== null && row.owner_pid !== process.pid && processIsAlive(row.owner_pid)) continue;
        const reason = `Interrupted: the process running it stopped${row.owner_pid !== null ? ` (pid ${row.owner_pid})` : ''} after step ${row.step_count}; resume to continue`;
        this.sql.setStatus.run({ id: row.id, status: 'interrupted', reason, at });
        this.sql.setLease.run({ id: row.id, epoch: row.lease_epoch + 1 });
        this.addEvent(row.id, at, 'interrupted', { from: row.status, to: 'interrupted', reason, detail: { ownerPid: row.owner_pid, steps: row.step_count } }, { status: 'interrupted', reason });
        marked.push(row.id);
      }
      return marked;
    }).immediate();
  }

  // ---- Tamper evidence -----------------------------------------------------------------------

  /**
   * Walks the run's hash chain from its genesis and names the first record that does not hold
   * (and, for a run field the chain does not vouch for, the field). Runs recorded before schema 4
   * are checked in chain format 1 and say so (`format: 1`, `covers`).
   */
  async verifyRun(runId: string, options: { onRecord?: (record: ChainRecordRef) => void } = {}): Promise<VerifyResult> {
    return this.db.transaction(() => {
      const row = this.requireRun(runId);
      const stepRows = this.sql.stepRows.all(runId) as StepRow[];
      const steps = stepRows.map((s) => ({
        index: s.idx,
        pos: s.pos,
        json: s.json,
        hash: s.hash,
        columns: { screenshotHash: s.screenshot_hash, afterScreenshotHash: s.after_hash, fullPageHash: s.full_page_hash, observationHash: s.observation_hash },
      }));
      const screenshot = (sha256: string) => this.screenshotState(sha256);
      if (row.chain_version === 2) {
        return verifyChainV2({
          genesis: row.genesis_json,
          run: claimedRun(runFromRow(row), row.record_count),
          steps,
          events: (this.sql.events.all(runId) as RunEventRow[]).map(storedEventOf),
          screenshot,
          onRecord: options.onRecord,
        });
      }
      const v1 = verifyChain({ identity: identityOf(row), stepCount: row.step_count, headHash: row.head_hash, steps, screenshot });
      if (v1.ok) stepRows.forEach((s, pos) => options.onRecord?.({ pos, hash: s.hash, kind: 'step', type: 'step' }));
      return v1;
    })();
  }

  /** The run as one self-contained JSON object; `verifyExport` checks it offline. */
  async exportRun(runId: string): Promise<RunExport> {
    const exportedAt = this.now().toISOString();
    return this.db.transaction(() => {
      const row = this.requireRun(runId);
      const stepRows = this.sql.stepRows.all(runId) as StepRow[];
      const screenshots: Record<string, string | null> = {};
      for (const sha256 of stepRows.flatMap((s) => [s.screenshot_hash, s.after_hash, s.full_page_hash])) {
        if (sha256 === null || Object.hasOwn(screenshots, sha256)) continue;
        const state = this.screenshotState(sha256);
        if (state.state === 'present') screenshots[sha256] = Buffer.from(state.png).toString('base64');
        else if (state.state === 'purged') screenshots[sha256] = null;
      }
      const run = runFromRow(row);
      // Parsed without the schema, so the export carries exactly the bytes the chain hashed.
      const steps = stepRows.map((s) => JSON.parse(s.json) as StepRecord);
      const auditTrail = (this.sql.events.all(runId) as RunEventRow[]).map(eventFromRow);
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
      const chain: RunExportV1['chain'] = {
        definition: CHAIN_DEFINITION,
        genesisHash: genesisHash(identityOf(row)),
        stepHashes: stepRows.map((s) => s.hash),
        headHash: row.head_hash,
      };
      return { format: RUN_EXPORT_FORMAT, version: 1, exportedAt, run, chain, steps, screenshots, auditTrail } satisfies RunExportV1;
    })();
  }

  // ---- Model payloads and retention ----------------------------------------------------------

  /** Keeps a planner call's raw request/response for debugging (outside the chain; purged with the run). */
  async recordModelPayload(runId: string, stepIndex: number, payload: ModelPayload): Promise<void> {
    this.secrets.check(payload, runId, `the model payload of step ${stepIndex} of run ${runId}`);
    // The hold's check and the write are one transaction, as for a step.
    this.db.transaction(() => {
      this.fencedRun(runId);
      this.sql.upsertPayload.run({
        run_id: runId,
        idx: stepIndex,
        request: canonicalJson(payload.request ?? null),
        response: payload.response === undefined ? null : canonicalJson(payload.response),
        at: this.now().toISOString(),
      });
    }).immediate();
  }

  async getModelPayload(runId: string, stepIndex: number): Promise<ModelPayload | null> {
    const row = this.sql.payload.get(runId, stepIndex) as { request: string; response: string | null } | undefined;
    return row ? { request: JSON.parse(row.request) as unknown, response: row.response === null ? null : (JSON.parse(row.response) as unknown) } : null;
  }

  /**
   * Retention: for runs that ENDED before `now - olderThanMs`, drops screenshot bytes (keeping a
   * tombstone with the hash, so the chain still verifies) and raw model payloads. A screenshot
   * still used by a step of a run outside the cutoff keeps its bytes. Step JSON, digests, approvals
   * and the audit trail stay. Freed pages go back to the file system (incremental vacuum).
   */
  async purge(options: PurgeOptions): Promise<PurgeResult> {
    if (!Number.isFinite(options.olderThanMs) || options.olderThanMs < 0) throw new RangeError('purge: olderThanMs must be a non-negative number of milliseconds');
    const now = options.now ?? this.now();
    const cutoffMs = now.getTime() - options.olderThanMs;
    const cutoff = new Date(cutoffMs).toISOString();
    const at = now.toISOString();
    const result = this.db.transaction((): PurgeResult => {
      this.sql.clearScope.run();
      const newlyPurged: string[] = [];
      for (const r of this.sql.endedRuns.all() as { id: string; ended_at: string; purged_at: string | null }[]) {
        const ended = Date.parse(r.ended_at);
        if (!Number.isFinite(ended) || ended >= cutoffMs) continue;
        this.sql.addToScope.run(r.id);
        if (r.purged_at === null) newlyPurged.push(r.id);
      }
      const blobs = this.sql.purgeableBlobs.all() as { sha256: string; bytes: number }[];
      for (const b of blobs) this.sql.dropBlob.run(at, b.sha256);
      const modelPayloads = this.sql.dropPayloads.run().changes;
      // Each run whose screenshots went gets a chained record naming them (so they verify as
      // purged); a run purged for the first time gets one even when nothing of it was dropped.
      const dropped = new Set(blobs.map((b) => b.sha256));
      for (const id of this.sql.scopeRuns.all() as string[]) {
        const removed = (this.sql.runScreenshots.all(id) as string[]).filter((h) => dropped.has(h)).sort();
        const first = newlyPurged.includes(id);
        if (!first && removed.length === 0) continue;
        if (first) this.sql.markPurged.run(at, id);
        this.addEvent(id, at, 'purged', { detail: { cutoff, olderThanMs: options.olderThanMs, screenshots: removed.length } }, { screenshots: removed });
      }
      this.sql.clearScope.run();
      return { cutoff, runs: newlyPurged.length, screenshots: blobs.length, screenshotBytes: blobs.reduce((n, b) => n + b.bytes, 0), modelPayloads };
    }).immediate();
    if (result.screenshots + result.modelPayloads > 0) this.db.pragma('incremental_vacuum');
    return result;
  }

  // ---- Inside transactions -------------------------------------------------------------------

  private writeStepTx(step: StepRecord, json: string, pngs: StepPngs): void {
    const run = this.fencedRun(step.runId);
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
      if (png && sha256) this.sql.putScreenshot.run({ sha256, png, bytes: png.byteLength, at });
    }
    const hash = stepHash(prev, json, step.screenshotHash);
    this.sql.insertStep.run({
      run_id: step.runId,
      idx: step.index,
      pos: v2 ? run.record_count : null,
      json,
      observation_hash: step.observationHash,
      screenshot_hash: step.screenshotHash,
      after_hash: step.afterScreenshotHash ?? null,
      full_page_hash: step.fullPageHash ?? null,
      hash,
      at,
    });
    const u = step.model?.usage;
    this.sql.advanceRun.run({
      id: step.runId,
      input: u?.inputTokens ?? 0,
      output: u?.outputTokens ?? 0,
      cache_read: u?.cacheReadTokens ?? 0,
      cache_write: u?.cacheWriteTokens ?? 0,
      cost: u?.costUsd ?? 0,
      head: hash,
      owner_pid: process.pid,
      owner_token: this.ownerToken,
      at,
    });
  }

  private updateRunTx(runId: string, patch: RunPatch): void {
    const run = this.fencedRun(runId);
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
    this.sql.updateRun.run({
      id: runId,
      ...next,
      owner_pid: live ? process.pid : run.owner_pid,
      owner_token: live ? this.ownerToken : run.owner_token,
      at,
    });
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
      this.addEvent(runId, at, type, { from, to, reason, detail: changed.length ? { fields: changed } : undefined }, set);
    } else if (changed.length > 0 || reasonChanged) {
      this.addEvent(runId, at, 'updated', { reason, detail: { fields: reasonChanged ? ['reason', ...changed] : changed } }, set);
    }
    if (statusChanged && FINAL_STATUSES.includes(to)) this.addOutcome(runId, at, patch.trace);
  }

  /** The chained final record of a run: its outcome, what it cost, how many steps, the receipt's hash. */
  private addOutcome(runId: string, at: string, trace?: TraceRecord): void {
    const run = this.requireRun(runId);
    const receipt = (this.sql.receiptMessages.all(runId) as string[])
      .map(receiptSha256In)
      .filter((h): h is string => h !== null)
      .at(-1);
    const r = runFromRow(run);
    this.addEvent(
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
  private addEvent(
    runId: string,
    at: string,
    type: RunEventType,
    e: { from?: string; to?: string; reason?: string | null; detail?: Record<string, unknown> },
    set: Record<string, unknown>,
  ): void {
    const run = this.requireRun(runId);
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
    this.sql.insertEvent.run({
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
    if (chained) this.sql.advanceChain.run({ id: runId, head: chained.hash });
  }

  /**
   * The run's row for a write (inside the write's transaction): refused with LeaseLostError when
   * this store's hold on the run is stale; a first write of a run created elsewhere takes the hold.
   */
  private fencedRun(runId: string): RunRow {
    const row = this.requireRun(runId);
    const taken = this.leases.check(runId, row.lease_epoch);
    if (taken !== null) {
      this.sql.setLease.run({ id: runId, epoch: taken });
      return { ...row, lease_epoch: taken };
    }
    return row;
  }

  /** Inside a write transaction: refuses when another run of this client on this portal is live under a process still there. */
  private refuseBusyClient(clientId: string, portal: string, runId: string): void {
    for (const row of this.sql.liveRunsOfClient.all(clientId, portal, JSON.stringify(LIVE_STATUSES)) as RunRow[]) {
      if (row.id === runId) continue;
      const ownerAlive = row.owner_token === this.ownerToken || (row.owner_pid !== null && (row.owner_pid === process.pid || processIsAlive(row.owner_pid)));
      if (ownerAlive) throw new ClientBusyError(clientId, portal, row);
    }
  }

  /** Whether this store still holds the run (no other store took it since this one last wrote it). */
  async holds(runId: string): Promise<boolean> {
    const row = this.sql.runRow.get(runId) as RunRow | undefined;
    return this.leases.holds(runId, row?.lease_epoch);
  }

  private requireRun(runId: string): RunRow {
    const row = this.sql.runRow.get(runId) as RunRow | undefined;
    if (!row) throw new Error(`No run ${runId} in ${this.path}`);
    return row;
  }

  private screenshotState(sha256: string): ScreenshotState {
    const row = this.sql.screenshotRow.get(sha256) as { png: Buffer | null } | undefined;
    if (!row) return { state: 'missing' };
    return row.png === null ? { state: 'purged' } : { state: 'present', png: row.png };
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

/** A step's pictures as checked PNG bytes, each matching the hash the step names for it. */
interface StepPngs {
  before: Buffer | null;
  after: Buffer | null;
  fullPage: Buffer | null;
}

/** Checks one picture against the hash its step names: a PNG whose sha256 it is, or neither. */
export function pictureBytes(what: string, name: string, field: string, bytes: Uint8Array | null, named: string | null): Buffer | null {
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

export function identityOf(row: RunRow) {
  return { id: row.id, caseId: row.case_id, clientId: row.client_id, portal: row.portal, task: row.task, startedAt: row.started_at };
}

/** An event row as the chain reads it; a row whose JSON columns no longer parse reads as null. */
export function storedEventOf(row: RunEventRow): StoredEvent {
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

export function fieldName(column: 'application_number' | 'ended_at' | 'case_json' | 'model'): string {
  return { application_number: 'applicationNumber', ended_at: 'endedAt', case_json: 'caseJson', model: 'model' }[column];
}

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Statements = ReturnType<typeof prepareStatements>;

/** Every statement the store runs, prepared once. */
function prepareStatements(db: Database.Database) {
  return {
    runRow: db.prepare('SELECT * FROM runs WHERE id = ?'),
    insertRun: db.prepare(`
      INSERT INTO runs (id, case_id, client_id, portal, task, planner, model, approve_mode, status, reason, application_number,
                        case_json, layout, started_at, ended_at, owner_pid, owner_token, created_at, updated_at, chain_version, genesis_json, lease_epoch)
      VALUES (@id, @case_id, @client_id, @portal, @task, @planner, @model, @approve_mode, @status, @reason, @application_number,
              @case_json, @layout, @started_at, @ended_at, @owner_pid, @owner_token, @at, @at, 2, @genesis_json, 1)`),
    updateRun: db.prepare(`
      UPDATE runs SET status = @status, reason = @reason, application_number = @application_number, ended_at = @ended_at,
                      case_json = @case_json, model = @model, owner_pid = @owner_pid, owner_token = @owner_token, updated_at = @at
      WHERE id = @id`),
    setStatus: db.prepare('UPDATE runs SET status = @status, reason = @reason, updated_at = @at WHERE id = @id'),
    setLease: db.prepare('UPDATE runs SET lease_epoch = @epoch WHERE id = @id'),
    advanceRun: db.prepare(`
      UPDATE runs SET step_count = step_count + 1,
                      input_tokens = input_tokens + @input, output_tokens = output_tokens + @output,
                      cache_read_tokens = cache_read_tokens + @cache_read, cache_write_tokens = cache_write_tokens + @cache_write,
                      cost_usd = cost_usd + @cost, head_hash = @head, record_count = record_count + 1,
                      owner_pid = @owner_pid, owner_token = @owner_token, updated_at = @at
      WHERE id = @id`),
    listRuns: db.prepare(`
      SELECT * FROM runs
      WHERE (? IS NULL OR status IN (SELECT value FROM json_each(?)))
      ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`),
    advanceChain: db.prepare('UPDATE runs SET record_count = record_count + 1, head_hash = @head WHERE id = @id'),
    liveRuns: db.prepare('SELECT * FROM runs WHERE status IN (SELECT value FROM json_each(?))'),
    liveRunsOfClient: db.prepare('SELECT * FROM runs WHERE client_id = ? AND portal = ? AND status IN (SELECT value FROM json_each(?))'),
    insertStep: db.prepare(`
      INSERT INTO steps (run_id, idx, pos, json, observation_hash, screenshot_hash, after_hash, full_page_hash, hash, recorded_at)
      VALUES (@run_id, @idx, @pos, @json, @observation_hash, @screenshot_hash, @after_hash, @full_page_hash, @hash, @at)`),
    stepJsons: db.prepare('SELECT json FROM steps WHERE run_id = ? ORDER BY idx').pluck(),
    stepJson: db.prepare('SELECT json FROM steps WHERE run_id = ? AND idx = ?').pluck(),
    stepRows: db.prepare('SELECT idx, pos, json, hash, screenshot_hash, after_hash, full_page_hash, observation_hash FROM steps WHERE run_id = ? ORDER BY idx'),
    // A purged blob seen again gets its bytes back (same hash, so same bytes).
    putScreenshot: db.prepare(`
      INSERT INTO screenshots (sha256, png, bytes, first_seen_at) VALUES (@sha256, @png, @bytes, @at)
      ON CONFLICT (sha256) DO UPDATE SET png = excluded.png, purged_at = NULL WHERE screenshots.png IS NULL`),
    screenshotPng: db.prepare('SELECT png FROM screenshots WHERE sha256 = ?').pluck(),
    screenshotRow: db.prepare('SELECT png FROM screenshots WHERE sha256 = ?'),
    approvals: db.prepare('SELECT * FROM approvals WHERE run_id = ? ORDER BY step, action_index'),
    insertEvent: db.prepare(`
      INSERT INTO run_events (run_id, at, type, from_status, to_status, reason, detail, pid, pos, set_json, hash)
      VALUES (@run_id, @at, @type, @from_status, @to_status, @reason, @detail, @pid, @pos, @set_json, @hash)`),
    receiptMessages: db.prepare(`
      SELECT json_extract(e.value, '$.message') FROM steps AS s, json_each(s.json, '$.events') AS e
      WHERE s.run_id = ? AND json_extract(e.value, '$.type') = 'receipt' ORDER BY s.idx, CAST(e.key AS INTEGER)`).pluck(),
    events: db.prepare('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq'),
    progressRow: db.prepare('SELECT * FROM progress WHERE client_id = ? AND portal = ? AND task = ?'),
    upsertProgress: db.prepare(`
      INSERT INTO progress (client_id, portal, task, case_id, sections_done, draft_id, application_number, submit_attempted_at, updated_at)
      VALUES (@client_id, @portal, @task, @case_id, @sections_done, @draft_id, @application_number, @submit_attempted_at, @updated_at)
      ON CONFLICT (client_id, portal, task) DO UPDATE SET
        case_id = excluded.case_id, sections_done = excluded.sections_done, draft_id = excluded.draft_id,
        application_number = excluded.application_number, submit_attempted_at = excluded.submit_attempted_at,
        updated_at = excluded.updated_at`),
    upsertPayload: db.prepare(`
      INSERT INTO model_payloads (run_id, idx, request, response, recorded_at) VALUES (@run_id, @idx, @request, @response, @at)
      ON CONFLICT (run_id, idx) DO UPDATE SET request = excluded.request, response = excluded.response, recorded_at = excluded.recorded_at`),
    payload: db.prepare('SELECT request, response FROM model_payloads WHERE run_id = ? AND idx = ?'),
    endedRuns: db.prepare('SELECT id, ended_at, purged_at FROM runs WHERE ended_at IS NOT NULL'),
    clearScope: db.prepare('DELETE FROM purge_scope'),
    addToScope: db.prepare('INSERT OR IGNORE INTO purge_scope (run_id) VALUES (?)'),
    purgeableBlobs: db.prepare(`
      SELECT sha256, bytes FROM screenshots
      WHERE png IS NOT NULL
        AND sha256 IN (SELECT sha256 FROM step_screenshots WHERE run_id IN (SELECT run_id FROM purge_scope))
        AND NOT EXISTS (SELECT 1 FROM step_screenshots AS s
                        WHERE s.sha256 = screenshots.sha256 AND s.run_id NOT IN (SELECT run_id FROM purge_scope))`),
    dropBlob: db.prepare('UPDATE screenshots SET png = NULL, purged_at = ? WHERE sha256 = ?'),
    dropPayloads: db.prepare('DELETE FROM model_payloads WHERE run_id IN (SELECT run_id FROM purge_scope)'),
    scopeRuns: db.prepare('SELECT run_id FROM purge_scope ORDER BY run_id').pluck(),
    runScreenshots: db.prepare('SELECT DISTINCT sha256 FROM step_screenshots WHERE run_id = ?').pluck(),
    markPurged: db.prepare('UPDATE runs SET purged_at = ? WHERE id = ?'),
  };
}
