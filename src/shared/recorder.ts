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
export interface RunRecorder {
  createRun(run: Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'>): Promise<void>;
  /** Writes one whole step (and its screenshot, and its after and full-page pictures when given) in one transaction. */
  recordStep(step: StepRecord, screenshot: Uint8Array | null, pictures?: StepPictures): Promise<void>;
  /** `trace`, given with a final status: what became of the run's Playwright trace, kept in its chained outcome record. */
  updateRun(runId: string, patch: Partial<Pick<RunRecord, 'status' | 'reason' | 'applicationNumber' | 'endedAt' | 'caseJson' | 'model'>> & { trace?: TraceRecord }): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  listSteps(runId: string): Promise<StepRecord[]>;
  getProgress(clientId: string, portal: string, task: string): Promise<ProgressRecord | null>;
  saveProgress(progress: ProgressRecord): Promise<void>;
  /** A value that must never be written (a password, a one-time code): the recorder refuses records holding it. */
  registerSecret(secret: string, runId: string): void;
}
