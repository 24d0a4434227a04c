import type { Action } from '../../../shared/action';
import { hasRef } from '../../../shared/action';
import { checkAction } from '../../guard/guard';
import type { PageRead } from '../../observe/page-read';
import type { ActionOutcome, RunEnding } from '../outcomes';
import type { RunContext } from '../run-context';
import { act } from './act';
import { approvalStage } from './approval';
import { codeAnswersStage } from './code-answers';
import { doubleSubmitStage } from './double-submit';
import { ended, next, ran, type ActionStage, type PendingAction } from './pending-action';

/** A block stops the action here; a ref from another read goes back to the model as `unknown_ref`, an error it can act on, never a click. */
const blockedStage: ActionStage = {
  id: 'blocked',
  async run(p, run) {
    if (p.verdict.verdict !== 'block') return next(p);
    const status = p.verdict.rule === 'unknown-ref' ? 'unknown_ref' : 'blocked';
    run.o.listener?.log?.(`  ${status}: ${p.verdict.reason}`);
    return ran(p, { status, message: p.verdict.reason });
  },
};

/**
 * What happens to a proposed action after the guard's verdict, in order; the first stage that
 * answers decides, and an action every stage passes is acted on (`act`). Adding a stage: a file
 * in this folder exporting an `ActionStage`, and its line here.
 */
const ACTION_STAGES: readonly ActionStage[] = [blockedStage, codeAnswersStage, approvalStage, doubleSubmitStage];

/** How a run ends at a desk that lost its hold: nothing of it is written (the store refuses), the other desk drives it. */
export function lostHold(run: RunContext): RunEnding {
  return { status: 'interrupted', reason: `This desk lost its hold on run ${run.o.runId}: another desk took it over; this desk stopped without acting or writing` };
}

/**
 * One proposed action through guard → (done, fail, ask answered by code) → approval →
 * double-submit check → act. Answers an outcome; only the driver ends the run.
 */
export async function runAction(action: Action, read: PageRead, moreTypingFollows: boolean, run: RunContext): Promise<ActionOutcome> {
  const started = Date.now();
  let pending: PendingAction = {
    action,
    read,
    element: hasRef(action) ? read.control(action.ref)?.label : undefined,
    verdict: checkAction(action, run.guardContext(read)),
    moreTypingFollows,
    ms: () => Date.now() - started,
  };
  for (const stage of ACTION_STAGES) {
    const result = await stage.run(pending, run);
    if (result.kind !== 'next') return result;
    pending = result.pending;
  }
  // Fencing: the last thing before the page is touched (an approval may have waited for minutes).
  if (!(await run.stillHolds())) return ended(pending, { status: 'skipped', message: 'Not done: this desk lost its hold on the run (another desk took it over)' }, lostHold(run));
  return act(pending, run);
}
