import type { RunStatus, StepAction } from '../../shared/run';

/** How a run ends: only the driver (`RunLoop.run`) writes it to the store. */
export interface RunEnding {
  /** `interrupted`: the model service stopped the run (overloaded, refusal, cut-off reply); `resume` continues it. */
  status: Extract<RunStatus, 'done' | 'failed' | 'blocked' | 'interrupted'>;
  reason: string;
  applicationNumber?: string;
}

/** A step code took on its own (the model is not asked): what the step log says and what code did. */
interface CodeStep {
  reasoning: string;
  actions?: StepAction[];
  /** A picture of the page after code's (or the clerk's) handling, beside the read's "before" picture (a take-over). */
  after?: Uint8Array | null;
}

/**
 * What a portal handler answers for one read of the page:
 * - `pass`: not its concern (or it did something that needs no step); the next handler looks.
 * - `handled`: it acted; the driver records `step` and reads the page again.
 * - `end`: the run ends with `ending`, after the driver records `step` when there is one.
 */
export type HandlerOutcome = { kind: 'pass' } | { kind: 'handled'; step: CodeStep } | { kind: 'end'; ending: RunEnding; step?: CodeStep };

/**
 * What the action pipeline answers for one proposed action: `ran` (recorded; the turn goes on
 * only when its outcome is `done`), or `end` (recorded, and the run ends with `ending`).
 */
export type ActionOutcome = { kind: 'ran'; action: StepAction } | { kind: 'end'; action: StepAction; ending: RunEnding };

export const PASS: HandlerOutcome = { kind: 'pass' };

export function handled(reasoning: string, actions?: StepAction[]): HandlerOutcome {
  return { kind: 'handled', step: actions ? { reasoning, actions } : { reasoning } };
}

export function endRun(ending: RunEnding, step?: CodeStep): HandlerOutcome {
  return step ? { kind: 'end', ending, step } : { kind: 'end', ending };
}

export function failed(reason: string): RunEnding {
  return { status: 'failed', reason };
}
