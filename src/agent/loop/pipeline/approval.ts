import { describeAction } from '../../../shared/describe-action';
import { submissionAt } from '../../browser/input-target';
import { sentByControl, type ControlSubmission } from '../../../shared/control-submission';
import { carriedOrigin } from '../gate-judge';
import type { PageRead } from '../../observe/page-read';
import { takePicture } from '../../observe/step-evidence';
import type { RunContext } from '../run-context';
import { failed } from '../outcomes';
import { ended, next, type ActionStage } from './pending-action';

/** An action the guard says `needs_approval` waits for the clerk; a denial ends the run. */
export const approvalStage: ActionStage = {
  id: 'approval',
  async run(p, run) {
    if (p.verdict.verdict !== 'needs_approval') return next(p);
    const { action, element, verdict } = p;
    const { approvals, runId } = run.o;
    const state = run.state;
    // The whole page the clerk is asked about, kept with the step (the first ask of a step, before anything runs).
    state.gatedFullPage ??= (await takePicture(run.o.page, 'full page')).png;
    // What the control sends as the clerk sees it: the one request it pre-approves must carry exactly this.
    const approvedSubmission = action.type === 'click' && p.read.control(action.ref)?.href ? await submissionOf(p.read, action.ref, run) : undefined;
    await run.setStatus('awaiting_approval', `Waiting for approval: ${describeAction(action, element)} (${verdict.reason})`);
    const sends = approvedSubmission ? sentByControl(approvedSubmission) : null;
    const expiresAt = run.waitExpiry();
    const waited = await run.waitForClerk(`the approval card for ${describeAction(action, element)}`, async () => approvals.request({
      runId,
      expiresAt,
      step: state.step,
      action,
      element,
      ...(approvedSubmission && sends
        ? {
            sends: run.secrets.redact({
              method: approvedSubmission.kind === 'link' ? 'GET' : approvedSubmission.method,
              url: approvedSubmission.url,
              values: sends.map(({ file, ...v }) => ({ ...v, ...carriedOrigin(run, v.value, file) })),
            }),
          }
        : {}),
      verdict,
      ...(state.turnReasoning ? { reasoning: run.secrets.redact(state.turnReasoning), ...(state.turnSource === 'route' ? { reasoningFrom: 'route' as const } : {}) } : {}),
      screenshotBase64: Buffer.from((await run.screenshot()) ?? new Uint8Array()).toString('base64') || undefined,
    }), expiresAt);
    if (waited.kind === 'expired') {
      // Nobody decided: the action is not taken, no approval is written, and the run stops resumable.
      return ended({ ...p }, { status: 'skipped', message: 'the wait for the clerk ran out' }, { status: 'interrupted', reason: waited.reason });
    }
    const decision = waited.answer;
    const approved = { ...p, ...(approvedSubmission !== undefined ? { approvedSubmission } : {}), approval: { decision: decision.decision, by: decision.by, at: run.now().toISOString(), note: decision.note } };
    if (decision.decision === 'deny') {
      return ended(approved, { status: 'denied', message: `denied by ${decision.by}` }, failed(`Denied by ${decision.by}: ${describeAction(action, element)}`));
    }
    state.approvalsGiven += 1;
    await run.setStatus('running');
    return next(approved);
  },
};

const READ_CONTROL_MS = 10_000;

/**
 * What the control of `ref` sends, read where a click lands (the centre of its part in view), by
 * the browser's own hit test in our isolated world (`submissionAt`); null when it cannot be read.
 */
async function submissionOf(read: PageRead, ref: string, run: RunContext): Promise<ControlSubmission | null> {
  try {
    const locator = await read.resolve(ref);
    if (!locator) return null;
    // The clerk is about to be asked anyway: a loaded desk gets time to answer, since an unread control pre-approves nothing (a second card).
    await locator.scrollIntoViewIfNeeded({ timeout: READ_CONTROL_MS });
    const box = await locator.boundingBox({ timeout: READ_CONTROL_MS });
    if (!box) return null;
    // The part of it inside the viewport, where a click lands (a control brought into view may show only its top).
    const view = run.o.page.viewportSize();
    const [left, top] = [Math.max(box.x, 0), Math.max(box.y, 0)];
    const [right, bottom] = [view ? Math.min(box.x + box.width, view.width) : box.x + box.width, view ? Math.min(box.y + box.height, view.height) : box.y + box.height];
    if (right <= left || bottom <= top) return null;
    return await submissionAt(run.o.page, { x: (left + right) / 2, y: (top + bottom) / 2 });
  } catch {
    return null;
  }
}
