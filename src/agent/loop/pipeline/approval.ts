import { describeAction } from '../../../shared/describe-action';
import { takePicture } from '../../observe/step-evidence';
import { failed } from '../outcomes';
import { ended, next, type ActionStage } from './pending-action';

/**
 * Actions that act on the portal by sending a request (a click, a goto, a key press): the clerk is
 * asked at the commit gate, with the first request the action sends, read from that request (one
 * card that names exactly what leaves; no separate read of the page that a busy desk can miss).
 */
const ASKED_AT_THE_GATE: ReadonlySet<string> = new Set(['click', 'goto', 'press']);

/**
 * An action the guard says `needs_approval` waits for the clerk; a denial ends the run. A click,
 * goto or key press is asked about at the gate with its first request (`askAtGate`); any other
 * action here, before it runs.
 */
export const approvalStage: ActionStage = {
  id: 'approval',
  async run(p, run) {
    if (p.verdict.verdict !== 'needs_approval') return next(p);
    const state = run.state;
    // The whole page the clerk is asked about, kept with the step (the first ask of a step, before anything runs:
    // once a click's request is held at the gate the page is mid-navigation, where a picture may not come).
    state.gatedFullPage ??= (await takePicture(run.o.page, 'full page')).png;
    if (ASKED_AT_THE_GATE.has(p.action.type)) return next({ ...p, askAtGate: true });
    const { action, element, verdict } = p;
    const { approvals, runId } = run.o;
    await run.setStatus('awaiting_approval', `Waiting for approval: ${describeAction(action, element)} (${verdict.reason})`);
    const expiresAt = run.waitExpiry();
    const waited = await run.waitForClerk(`the approval card for ${describeAction(action, element)}`, async () => approvals.request({
      runId,
      expiresAt,
      step: state.step,
      action,
      element,
      verdict,
      ...(state.turnReasoning ? { reasoning: run.secrets.redact(state.turnReasoning), ...(state.turnSource === 'route' ? { reasoningFrom: 'route' as const } : {}) } : {}),
      screenshotBase64: Buffer.from((await run.screenshot()) ?? new Uint8Array()).toString('base64') || undefined,
      ...(state.gatedFullPage ? { fullPageBase64: Buffer.from(state.gatedFullPage).toString('base64') } : {}),
    }), expiresAt);
    if (waited.kind === 'expired') {
      // Nobody decided: the action is not taken, no approval is written, and the run stops resumable.
      return ended({ ...p }, { status: 'skipped', message: 'the wait for the clerk ran out' }, { status: 'interrupted', reason: waited.reason });
    }
    const decision = waited.answer;
    const approved = { ...p, approval: { decision: decision.decision, by: decision.by, at: run.now().toISOString(), note: decision.note } };
    if (decision.decision === 'deny') {
      return ended(approved, { status: 'denied', message: `denied by ${decision.by}` }, failed(`Denied by ${decision.by}: ${describeAction(action, element)}`));
    }
    state.approvalsGiven += 1;
    await run.setStatus('running');
    return next(approved);
  },
};
