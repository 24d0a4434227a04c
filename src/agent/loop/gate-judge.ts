import { heldRequestLine, type ApprovalDecision, type CarriedValueOrigin, type HeldRequest } from '../../shared/clerk';
import { commitGateRule } from '../../shared/verdict';
import { readCaseDocument } from '../case/documents';
import type { GatedAction, GateRecord } from '../guard/commit-gate';
import type { CarriedFile } from '../../shared/control-submission';
import { gateRequest, takePicture } from '../observe/step-evidence';
import type { RunContext } from './run-context';
import type { RunState } from './run-state';

/**
 * The loop's side of the commit gate: the clerk approves or denies each request it holds, the
 * case tells where a value it carries came from, and a submission waits for the double-submit
 * check. Every request it judged goes in the step log; a denial is kept in the run state, and
 * the run ends with it once the action that caused it is recorded.
 */
export function judgeGate(run: RunContext): void {
  const gate = run.o.gate;
  gate.setJudge({
    approve: (held, step, gated, navigating) => approveRequest(run, held, step, gated, navigating),
    origin: (value, file) => carriedOrigin(run, value, file),
    beforeSubmission: () => beforeSubmission(run),
  });
  gate.onRecord((record) => onRecord(run, record));
}

/** The clerk's denial of a request the gate held, once (the run ends with it as the reason). */
export function takeDenial(state: RunState): string | undefined {
  const reason = state.denial;
  state.denial = undefined;
  return reason;
}

function onRecord(run: RunContext, record: GateRecord): void {
  run.note(record.type, record.detail);
  // The request as data for the replay's and report's requests pane (method, address, outcome, rule).
  const noted = run.state.pendingEvents.at(-1);
  if (noted?.type === record.type) noted.request = run.secrets.redact(gateRequest(record));
  if (record.type === 'commit_denied' && !run.state.denial) {
    run.state.denial = `Denied by ${record.decision?.by ?? 'the clerk'}: ${heldRequestLine(record)} was not sent`;
  }
}

/**
 * One card for one held request: what it carries, read from the request itself (nothing read from
 * the page but pictures, each tried briefly), with the gated action it is the first request of,
 * and on a final-review page the values the portal says it will file beside the case.
 */
async function approveRequest(run: RunContext, held: HeldRequest, step: number | null, gated: GatedAction | undefined, navigating: boolean): Promise<ApprovalDecision> {
  const review = run.state.review;
  const redacted = run.secrets.redact(review && review.length > 0 ? { ...held, review } : held);
  // A page whose document request is held cannot be pictured until it is answered (every try runs
  // out): the card shows the pictures taken before the action (the whole page, taken before a
  // gated action runs, and the last picture of the step). Otherwise a short try of each.
  if (!navigating) run.state.gatedFullPage ??= (await takePicture(run.o.page, 'full page', 2_000)).png;
  const picture = navigating ? null : await run.screenshot(2_000);
  await run.setStatus('awaiting_approval', `Waiting for approval: send ${heldRequestLine(redacted)} (${redacted.reason})`);
  try {
    const expiresAt = run.waitExpiry();
    const waited = await run.waitForClerk(`the approval card for ${heldRequestLine(redacted)}`, async () => run.o.approvals.request({
      runId: run.o.runId,
      expiresAt,
      step: step ?? run.state.step,
      request: redacted,
      ...(gated ? { action: gated.action, ...(gated.element ? { element: gated.element } : {}), ...(gated.reasoning ? { reasoning: run.secrets.redact(gated.reasoning) } : {}) } : {}),
      // Why the clerk is asked: the guard's verdict on the action (the request's own rule and reason are on `request`).
      verdict: gated ? gated.verdict : { verdict: 'needs_approval', rule: commitGateRule(held.rule), reason: redacted.reason },
      screenshotBase64: Buffer.from(picture ?? run.state.lastScreenshot ?? new Uint8Array()).toString('base64') || undefined,
      ...(run.state.gatedFullPage ? { fullPageBase64: Buffer.from(run.state.gatedFullPage).toString('base64') } : {}),
    }), expiresAt);
    // Run out, the request is not sent (the gate refuses what nobody approved); the run stops resumable.
    if (waited.kind === 'expired') return { decision: 'deny', by: 'no answer (the wait ran out)' };
    const decision = waited.answer;
    if (decision.decision === 'approve') run.state.approvalsGiven += 1;
    return decision;
  } finally {
    await run.setStatus('running');
  }
}

/** Where a value a request carries came from: a case field or document, a clerk's answer, or neither. */
function carriedOrigin(run: RunContext, value: string, file?: CarriedFile): { origin: CarriedValueOrigin; field?: string } {
  return file ? documentOf(run, file) : originOf(run, value);
}

function originOf(run: RunContext, value: string): { origin: CarriedValueOrigin; field?: string } {
  if (value === '') return { origin: 'not_from_case' };
  for (const [field, v] of Object.entries(run.o.caseFile.fields)) {
    if (v !== null && v !== undefined && String(v) === value) return { origin: 'case', field };
  }
  for (const [field, v] of Object.entries(run.state.clerkValues)) if (v === value) return { origin: 'clerk', field };
  return { origin: 'not_from_case' };
}

/**
 * Which case document a file the request carries is: the one whose bytes hash to what would leave
 * (the same sha256 the upload step recorded). A file that is none of them, or whose bytes could
 * not be read, is not from the case.
 */
function documentOf(run: RunContext, file: CarriedFile): { origin: CarriedValueOrigin; field?: string } {
  if (!file.sha256) return { origin: 'not_from_case' };
  for (const name of Object.keys(run.o.caseFile.documents ?? {})) {
    const read = readCaseDocument(run.o.caseFile, name);
    if (read.ok && read.document.sha256 === file.sha256) return { origin: 'case', field: `document ${name}` };
  }
  return { origin: 'not_from_case' };
}

/**
 * Right before an approved submission leaves, whatever sent it: never a second one before the
 * applications list was checked, and the progress record says a submission was attempted first.
 */
async function beforeSubmission(run: RunContext): Promise<{ send: true } | { send: false; reason: string }> {
  const state = run.state;
  if (state.submissionCleared) {
    state.submissionCleared = false;
    return { send: true };
  }
  if (run.progress.mayHaveSubmitted) {
    return { send: false, reason: 'a submission of this case may already have gone through, and nothing is submitted again before the applications list is checked' };
  }
  await run.progress.submitAttempted();
  return { send: true };
}
