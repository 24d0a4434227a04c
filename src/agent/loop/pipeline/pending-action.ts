import type { Action } from '../../../shared/action';
import type { Outcome } from '../../../shared/outcome';
import type { Approval, StepAction } from '../../../shared/run';
import type { Verdict } from '../../../shared/verdict';
import type { PageRead } from '../../observe/page-read';
import type { ActionOutcome, RunEnding } from '../outcomes';
import type { RunContext } from '../run-context';

/** One proposed action on its way through the pipeline: what the guard and the clerk said so far. */
export interface PendingAction {
  action: Action;
  read: PageRead;
  /** The control it names, as the read saw it: `button "Submit application"`. */
  element: string | undefined;
  verdict: Verdict;
  approval?: Approval;
  /** The clerk is asked at the commit gate, with the first request the action sends (see `approvalStage`). */
  askAtGate?: boolean;
  /** Another fill or select follows in the same turn (the page settles once, after the last). */
  moreTypingFollows: boolean;
  /** Milliseconds since the pipeline took the action. */
  ms(): number;
}

/** What a stage answers: `next` (the next stage takes it, with what this one added), or the action's outcome. */
export type StageResult = { kind: 'next'; pending: PendingAction } | ActionOutcome;

/**
 * One stage of the action pipeline (see `ACTION_STAGES`): it looks at the pending action and
 * passes it on, or answers its outcome (recorded; the turn goes on only after `done`), or ends the
 * run. It never throws to end a run.
 */
export interface ActionStage {
  readonly id: string;
  run(pending: PendingAction, run: RunContext): Promise<StageResult>;
}

export function next(pending: PendingAction): StageResult {
  return { kind: 'next', pending };
}

/** An action's outcome as a stage states it; `ms` defaults to the time since the pipeline took it. */
type Said = Omit<Outcome, 'ms'> & { ms?: number };

/** The step log's entry for the action, with the outcome given. */
function stepAction(p: PendingAction, said: Said): StepAction {
  const outcome: Outcome = { ...said, ms: said.ms ?? p.ms() };
  return p.approval ? { action: p.action, element: p.element, verdict: p.verdict, approval: p.approval, outcome } : { action: p.action, element: p.element, verdict: p.verdict, outcome };
}

/** The action is recorded with this outcome; the turn goes on only when it is `done`. */
export function ran(p: PendingAction, said: Said): ActionOutcome {
  return { kind: 'ran', action: stepAction(p, said) };
}

/** The action is recorded with this outcome, and the run ends. */
export function ended(p: PendingAction, said: Said, ending: RunEnding): ActionOutcome {
  return { kind: 'end', action: stepAction(p, said), ending };
}
