import type { Turn } from '../../shared/action';
import type { Observation } from '../../shared/observation';
import type { ModelCall, StepAction } from '../../shared/run';

/** What a planner may know of the case: field names and values (never credentials, never OTPs). */
export interface CaseView {
  caseId: string;
  portal: string;
  task: string;
  fields: Record<string, string | boolean>;
  aliases: Record<string, string[]>;
  declarations: string[];
}

export interface PlanInput {
  /** 0-based index of the step being planned. */
  step: number;
  observation: Observation;
  /** What happened to the previous turn's actions (empty on the first step). */
  previous: StepAction[];
  /** Events since the previous turn the planner should know of (e.g. "signed in by code"). */
  notes: string[];
  /** PNG of the page, when the engine offers one; the planner's policy decides whether to send it. */
  screenshot: () => Promise<Uint8Array>;
  /** Case fields the clerk supplied during the run (missing values, never secrets); they fill like case fields. */
  clerkFields?: Record<string, string>;
}

export interface PlanResult {
  turn: Turn;
  /** The model call behind the turn (null for planners that call no model). */
  call: ModelCall | null;
}

/** Why a planner could not produce a turn. `auth` ends the run at once. */
export type PlannerErrorKind = 'auth' | 'invalid_output' | 'refusal' | 'max_tokens' | 'unavailable' | 'budget';

export class PlannerError extends Error {
  constructor(
    readonly kind: PlannerErrorKind,
    message: string,
    readonly call: ModelCall | null = null,
  ) {
    super(message);
    this.name = 'PlannerError';
  }
}

/**
 * A planner turns an observation into a turn of actions. Model backends implement it;
 * so does the offline `rules` form filler. Planners propose; the guard decides.
 */
export interface Planner {
  /** "rules", "anthropic", "adversary"... */
  readonly id: string;
  /** One line for the log, e.g. "rule-based form filler (not AI)". */
  readonly description: string;
  /** Called once before the first step. */
  start(caseView: CaseView): Promise<void> | void;
  decide(input: PlanInput): Promise<PlanResult>;
}
