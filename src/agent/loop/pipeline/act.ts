import { hasRef } from '../../../shared/action';
import { describeAction } from '../../../shared/describe-action';
import type { Outcome } from '../../../shared/outcome';
import { executeAction, type ActionValue } from '../../act/executor';
import { errorMessage } from '../../../base/error-text';
import { resolveDocument, resolveValue } from '../../guard/guard';
import { takeDenial } from '../gate-judge';
import type { GateDecision } from '../../guard/commit-gate';
import { failed, type ActionOutcome } from '../outcomes';
import type { RunContext } from '../run-context';
import { ended, ran, type PendingAction } from './pending-action';

/**
 * The act: the executor runs the action through the commit gate (attributed to it, pre-approved
 * when the clerk approved it), with the value from the case through the guard. A request of it
 * the clerk denied at the gate ends the run.
 */
export async function act(pending: PendingAction, run: RunContext): Promise<ActionOutcome> {
  let p = pending;
  const { action, read, element } = p;
  const { gate, page } = run.o;
  const state = run.state;
  let value: ActionValue | undefined = action.type === 'fill' || action.type === 'select' ? resolveValue(action, run.guardContext(read)) : undefined;
  if (action.type === 'upload') {
    try {
      value = resolveDocument(action, run.guardContext(read), p.verdict);
    } catch (err) {
      // The document changed after the guard read it: nothing is attached.
      return ran(p, { status: 'blocked', message: errorMessage(err) });
    }
  }
  const control = hasRef(action) ? read.control(action.ref) : undefined;
  let outcome: Outcome;
  let asked: GateDecision | undefined;
  const at = run.now().toISOString();
  try {
    outcome = await gate.during(
      {
        step: state.step,
        description: describeAction(action, element),
        approved: p.approval?.decision === 'approve',
        ...(p.askAtGate ? { ask: { action, element, verdict: p.verdict, reasoning: state.turnReasoning, answered: (decision: GateDecision) => void (asked = decision) } } : {}),
      },
      () => executeAction(page, read, action, value, p.moreTypingFollows ? { settle: { moreTypingFollows: true } } : {}),
    );
  } finally {
    state.submissionCleared = false;
  }
  // The clerk's answer to the action's card at the gate is the action's approval in the step log.
  if (asked) p = { ...p, approval: { decision: asked.decision, by: asked.by, at, ...(asked.note !== undefined ? { note: asked.note } : {}) } };
  else if (p.askAtGate) run.note('gated_action', `${describeAction(action, element)} sent no request that navigates or sends data while it ran: there was nothing to put to the clerk (${p.verdict.reason})`);
  const denial = takeDenial(state);
  if (denial) return ended(p, { status: 'denied', message: denial }, failed(denial));
  // The click did its work: its first request waited at the gate for the clerk, was approved and went, and the
  // page it sent moved on meanwhile, so the control was gone before the click call returned. Not a failure
  // (a learned route keeps this page, and a route that clicked it goes on).
  if (asked?.decision === 'approve' && outcome.status === 'unknown_ref' && action.type === 'click') {
    outcome = { status: 'done', message: `approved at the gate and sent; the page moved on (${outcome.message ?? 'the control went away'})`, ms: outcome.ms };
  }
  if (outcome.status === 'done' && action.type === 'click') await run.progress.clicked(control, read.observation);
  return ran(p, outcome);
}
