import type { RunRecorder } from '../shared/recorder';
import type { RunRecord, StepRecord } from '../shared/run';
import type { ChainRecordRef } from './chain-v2';
import type { VerifyResult } from './chain';
import type { RunExport } from './run-export';
import type { ApprovalEntry, RunEvent } from './records';
import type { ModelPayload, PurgeOptions, PurgeResult, RunQuery } from './run-store';

/**
 * What the store's callers use, whatever holds it: the engine's RunRecorder port, and the
 * queries of replay, verify, the console, the CLI and retention. One implementation,
 * `RunStore` (src/store/run-store.ts), over two SQL drivers (test/store runs its suite against
 * both): `SqliteStore` (one file per desk, the embedded default) and `PgStore` (one PostgreSQL
 * database an office's desks share, chosen with `PORTAL_DESK_DATABASE_URL`). Both write the same
 * hash chain, refuse the same secrets and answer the same replay queries: the same code does.
 */
export interface Store extends RunRecorder {
  /** Where the store lives, for messages: a file path, or a PostgreSQL address without its password. */
  readonly path: string;
  /** A folder on this desk for files kept beside the store (portal receipts). */
  readonly localFolder?: string;
  /** Which kind of store this is. */
  readonly kind?: 'sqlite' | 'postgres';
  close(): void | Promise<void>;
  registerSecret(secret: string, runId?: string): void;

  /** Newest first. */
  listRuns(query?: RunQuery): Promise<RunRecord[]>;
  getStep(runId: string, index: number): Promise<StepRecord | null>;
  /** The PNG with this sha256, or null when unknown or purged. */
  getScreenshot(sha256: string): Promise<Uint8Array | null>;
  approvals(runId: string): Promise<ApprovalEntry[]>;
  auditTrail(runId: string): Promise<RunEvent[]>;
  /**
   * Takes a run that is not final up again (`running`, with `reason`) under the same lock as a new
   * run: refused with ClientBusyError, nothing written, while the run itself or another run of its
   * client on its portal is live under a process still there. The check and the write are one
   * transaction, so of two resumes at the same moment one goes on and the other is refused.
   */
  resumeRun(runId: string, reason: string): Promise<void>;
  /** Marks runs left live by a process of this desk that is gone as `interrupted`; returns their ids. */
  markInterrupted(): Promise<string[]>;
  verifyRun(runId: string, options?: { onRecord?: (record: ChainRecordRef) => void }): Promise<VerifyResult>;
  exportRun(runId: string): Promise<RunExport>;
  recordModelPayload(runId: string, stepIndex: number, payload: ModelPayload): Promise<void>;
  getModelPayload(runId: string, stepIndex: number): Promise<ModelPayload | null>;
  purge(options: PurgeOptions): Promise<PurgeResult>;
}
