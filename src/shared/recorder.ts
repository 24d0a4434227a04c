import type { ProgressRecord, RunRecord, StepRecord } from './run';
import type { TraceRecord } from './trace';

/** A step's pictures beside its "before" screenshot, each named in the step by its sha256. */
export interface StepPictures {
  /** After the step's actions ran and the page settled (`step.afterScreenshotHash`). */
  after?: Uint8Array | null;
  /** The whole page at a gated step (`step.fullPageHash`). */
  fullPage?: Uint8Array | null;
}

/**
 * The engine writes through this port; `src/store` implements it with SQLite.
 * Every call is durable when its promise resolves: a crash afterwards loses nothing.
 */
/** How a run is created. */
export interface CreateRunOptions {
  /**
   * Every way a run starts (CLI, batch, console, office desk) sets it: the store refuses the run
   * (ClientBusyError, nothing written) while another run of the same client on the same portal is
   * live under a process still there; check and write are one transaction.
   */
  oneLivePerClient?: boolean;
}

export interface RunRecorder {
  createRun(run: Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'>, options?: CreateRunOptions): Promise<void>;
  /** Writes one whole step (and its screenshot, and its after and full-page pictures when given) in one transaction. */
  recordStep(step: StepRecord, screenshot: Uint8Array | null, pictures?: StepPictures): Promise<void>;
  /** `trace`, given with a final status: what became of the run's Playwright trace, kept in its chained outcome record. */
  updateRun(runId: string, patch: Partial<Pick<RunRecord, 'status' | 'reason' | 'applicationNumber' | 'endedAt' | 'caseJson' | 'model'>> & { trace?: TraceRecord }): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  listSteps(runId: string): Promise<StepRecord[]>;
  getProgress(clientId: string, portal: string, task: string): Promise<ProgressRecord | null>;
  /**
   * `runId`: the run that writes the record. Its write is fenced like the run's own: refused, with
   * nothing written, when this desk's hold on that run is stale (another desk took it over).
   */
  saveProgress(progress: ProgressRecord, runId?: string): Promise<void>;
  /** A value that must never be written (a password, a one-time code): the recorder refuses records holding it. */
  registerSecret(secret: string, runId: string): void;
  /**
   * Whether this desk still holds the run (fencing): false once another desk took it over, after
   * which every write of the run is refused. The engine asks before each action and stops acting.
   */
  holds?(runId: string): Promise<boolean>;
}
