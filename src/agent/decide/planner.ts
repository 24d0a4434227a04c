import type { Turn } from '../../shared/action';
import type { Observation } from '../../shared/observation';
import type { StepSource } from '../../shared/route';
import type { ModelCall, StepAction } from '../../shared/run';
import { PortalDeskError } from '../../base/portal-desk-error';

/** What a planner may know of the case: field names and values (never credentials, never OTPs). */
export interface CaseView {
  caseId: string;
  portal: string;
  task: string;
  fields: Record<string, string | boolean>;
  aliases: Record<string, string[]>;
  declarations: string[];
  /** Names of the documents the case file lists (never their paths): what an upload may attach. */
  documents?: string[];
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
  /** Aborted when the run's time limit passes: a model request still waiting is cancelled. */
  signal?: AbortSignal;
}

export interface PlanResult {
  turn: Turn;
  /** The model call behind the turn (null for planners that call no model). */
  call: ModelCall | null;
  /** Where the turn came from when a planner decorates another (the learned route's follower); recorded on the step. */
  source?: StepSource;
}

/**
 * Why a planner could not produce a turn. The model service stopping it — `unavailable`
 * (overloaded, rate-limited, unreachable, a broken reply), `refusal`, `max_tokens` — leaves the
 * run resumable (see {@link isModelServiceStop}); the rest end it: `auth` (key rejected),
 * `rejected` (the API refused the request itself: a bad request, an unknown model, billing),
 * `invalid_output` (unusable replies), `budget` (turn cap, context window).
 */
type PlannerErrorKind = 'auth' | 'rejected' | 'invalid_output' | 'refusal' | 'max_tokens' | 'unavailable' | 'budget';

/** The model service stopped the turn, not the run's own state: resuming later may well succeed. */
export function isModelServiceStop(kind: PlannerErrorKind): boolean {
  return kind === 'unavailable' || kind === 'refusal' || kind === 'max_tokens';
}

export class PlannerError extends PortalDeskError {
  constructor(
    readonly kind: PlannerErrorKind,
    message: string,
    readonly call: ModelCall | null = null,
  ) {
    super(message);
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
