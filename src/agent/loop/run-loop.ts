import { digest, sha256Hex } from '../../base/canonical-json';
import { errorText } from '../../base/error-text';
import type { Action } from '../../shared/action';
import type { StepSource } from '../../shared/route';
import type { ModelCall, StepAction, StepRecord } from '../../shared/run';
import { TYPING_ACTIONS } from '../act/executor';
import { egressLockOf } from '../guard/browser';
import type { PageRead } from '../observe/page-read';
import { PageErrorLog, takePicture } from '../observe/step-evidence';
import { isFinalReviewPage } from '../portal/page-kind';
import { reviewedOnPage, reviewedValues } from '../portal/review-values';
import { applicationNumbersIn, proofOnPage, type DoneProof } from './done-proof';
import { judgeGate, takeDenial } from './gate-judge';
import { PORTAL_HANDLERS, type PortalTurn } from './handlers';
import { failed, type RunEnding } from './outcomes';
import { lostHold, runAction } from './pipeline/action-pipeline';
import { planTurn } from './plan-turn';
import { RunContext } from './run-context';
import type { RunLoopOptions } from './run-options';
import { notReached, validActions } from './turn-actions';

export type { RunListener } from './run-options';

export interface RunResult extends RunEnding {
  steps: number;
  approvals: number;
}

/** One read of the page, as the step that records it begins. */
interface StepStart {
  startedAt: string;
  observation: StepRecord['observation'];
  screenshot: Uint8Array | null;
}

/** How often the time limit's watch reads the run's working time. */
const DEADLINE_TICK_MS = 250;

/**
 * The act–observe loop: observe → portal handlers → decide → action pipeline → record, until
 * the run is done with proof, fails, is blocked, or reaches its step cap or time limit. Code, not
 * the model, signs in, types one-time codes and decides what is allowed. The handlers and the
 * pipeline answer outcomes; this driver alone decides where and how a run ends.
 */
export class RunLoop {
  private readonly ctx: RunContext;
  /** The page's own errors, kept with the step they happen in. */
  private readonly pageErrors: PageErrorLog;

  constructor(o: RunLoopOptions) {
    this.ctx = new RunContext(o);
    this.pageErrors = new PageErrorLog(this.ctx.now).attach(o.page.context());
    judgeGate(this.ctx);
  }

  /** Something code saw outside the model's actions (a blocked pop-up, a dismissed dialog...). */
  note(type: string, message: string): void {
    this.ctx.note(type, message);
  }

  /** Registers a secret that must never be written down (a vault password). */
  addSecret(secret: string): void {
    this.ctx.addSecret(secret);
  }

  async run(): Promise<RunResult> {
    const { o, state, progress, secrets } = this.ctx;
    await progress.load();
    await o.planner.start(this.ctx.caseView());
    o.listener?.log?.(`planner: ${o.planner.id} — ${o.planner.description}`);
    let ending: RunEnding;
    try {
      const started = this.ctx.now().getTime();
      ending = await this.withinTimeLimit(started, this.steps(started));
    } catch (err) {
      // A write the store refused because another desk took the run over: this desk stops here.
      ending = (await this.ctx.stillHolds()) ? failed(`Run stopped by an error: ${errorText(err)}`) : lostHold(this.ctx);
    }
    // A desk that lost its hold reads nothing more on the portal: the run is another desk's now.
    if (!this.ctx.lostHold) ending = await this.afterSubmission(ending);
    if (ending.status !== 'done' && state.waitExpired) ending = { status: 'interrupted', reason: state.waitExpired };
    // The browser died under the run (a crash, a kill): not the case's failure; `resume` continues it in a new one.
    if (ending.status !== 'done' && browserGone(o.page)) ending = { status: 'interrupted', reason: `The browser stopped during the run (${ending.reason}); resume continues it from the store in a new browser` };
    const reason = secrets.redact(ending.reason);
    if (this.ctx.lostHold) {
      // Another desk drives the run now: this one writes nothing into it, not even its ending.
      o.listener?.status?.(ending.status, reason);
      return { ...ending, reason, steps: state.step, approvals: state.approvalsGiven };
    }
    await o.recorder.updateRun(o.runId, { status: ending.status, reason, applicationNumber: ending.applicationNumber, endedAt: this.ctx.now().toISOString() });
    o.listener?.status?.(ending.status, reason);
    return { ...ending, reason, steps: state.step, approvals: state.approvalsGiven };
  }

  /**
   * A submission of this run that went out and that the portal answered is kept with its number,
   * whatever ended the run after it (the time limit, the step cap, a denial of a later card, an
   * error): the page is read once more for the proof, else the portal's applications list is
   * checked. Either one goes in the progress record, so the record and the run agree.
   */
  private async afterSubmission(ending: RunEnding): Promise<RunEnding> {
    const { o } = this.ctx;
    if (ending.status === 'done' || o.gate.submissionsAnswered === 0) return ending;
    try {
      const read = await o.observer.read(o.page);
      const proof = await proofOnPage(read, this.ctx);
      if (proof.ok) return { status: 'done', reason: `Submitted: the portal answered with ${proof.applicationNumber} (after it: ${ending.reason})`, applicationNumber: proof.applicationNumber };
      const listed = await this.ctx.progress.checkApplicationsList(o.page, o.profile);
      if (listed.kind === 'found') return { status: 'done', reason: `Submitted: application ${listed.applicationNumber} is on the portal's applications list (${listed.matchedBy}; after it: ${ending.reason})`, applicationNumber: listed.applicationNumber };
      this.ctx.note('submission_unproven', `A submission went out and the portal answered it, but neither the page nor the applications list shows its number (${proof.reason})`);
    } catch (err) {
      this.ctx.note('submission_unproven', `A submission went out and the portal answered it; its number could not be read afterwards: ${errorText(err)}`);
    }
    return ending;
  }

  /**
   * The run's work, or `interrupted` the moment its time limit passes, naming what it was doing:
   * a model request that never answers, a store call or page work that hangs cannot outlive the
   * limit. The limit counts working time on the run's clock: a wait for the clerk (a card, a
   * question, a take-over) is the clerk's time and has its own expiry (`waitForClerk`), so a late
   * approval is never cut off here. The deadline's abort cancels a waiting model request; work
   * still under way is left to end on its own and records nothing (record() checks the deadline),
   * and the caller closes the page.
   */
  private async withinTimeLimit(started: number, work: Promise<RunEnding>): Promise<RunEnding> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<RunEnding>((resolve) => {
      timer = setInterval(() => {
        if (this.ctx.workingMs(started) > this.ctx.limits.timeLimitMs) resolve(this.timeLimitReached(`while ${this.ctx.doing}`));
      }, DEADLINE_TICK_MS);
    });
    // The work may still fail after the limit ended the run: that is not the run's ending any more.
    work.catch(() => undefined);
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * The one ending of a run past its time limit, wherever the limit is seen (the watch while work is
   * under way, or the check between steps): `interrupted`, resumable, naming what the run was doing.
   * The deadline is aborted, so work still under way records nothing more.
   */
  private timeLimitReached(doing: string): RunEnding {
    const { limits, state } = this.ctx;
    const limit = Math.round(limits.timeLimitMs / 1000);
    if (!this.ctx.deadline.signal.aborted) this.ctx.deadline.abort(new Error(`time limit of ${limit} s`));
    return {
      status: 'interrupted',
      reason: `Time limit reached (${limit} s of working time, not counting ${Math.round(state.clerkWaitMs / 1000)} s waiting for the clerk) ${doing}; nothing more was done. Continue with "portal-desk resume ${this.ctx.o.runId}".`,
    };
  }

  /** Opens the portal and takes steps until one ends the run, or the step cap or time limit does. */
  private async steps(started: number): Promise<RunEnding> {
    const { o, state, progress, limits } = this.ctx;
    this.ctx.doing = `opening the portal at ${o.profile.startUrl}`;
    const lastStep = state.step + limits.maxSteps;
    if (state.step > 0) {
      this.ctx.note('resumed', `Resumed at step ${state.step}: the progress record is read again and nothing is submitted twice`);
      const resumeNote = progress.resumeNote();
      this.ctx.tellModel(`This run was resumed after its process stopped.${resumeNote ? ` ${resumeNote}` : ''}`);
    }
    this.ctx.note('navigation', `Opening the portal at ${o.profile.startUrl}`);
    await this.ctx.goto(o.profile.startUrl);
    while (state.step < lastStep) {
      // Working time: the clerk's waits (approval cards, questions, take-overs) are not counted.
      if (this.ctx.workingMs(started) > limits.timeLimitMs) return this.timeLimitReached(`before step ${state.step}, after ${this.ctx.doing}`);
      if (state.waitExpired) return { status: 'interrupted', reason: state.waitExpired };
      if (!(await this.ctx.stillHolds())) return lostHold(this.ctx);
      const ending = await this.oneStep();
      if (ending) return ending;
    }
    return failed(`Step cap reached (${limits.maxSteps} steps) before the form was submitted`);
  }

  /** One turn of the loop, recorded as one step; answers how the run ends when it does. */
  private async oneStep(): Promise<RunEnding | undefined> {
    const { o, state, secrets, progress } = this.ctx;
    // A request the page sent on its own may still wait for the clerk: the page is read after the answer.
    this.ctx.doing = `waiting for the clerk's answer before step ${state.step}`;
    await o.gate.idle();
    const denial = takeDenial(state);
    if (denial) return failed(denial);
    const startedAt = this.ctx.now().toISOString();
    this.ctx.doing = `reading the page at step ${state.step}`;
    const read = await o.observer.read(o.page);
    const screenshot = await this.ctx.screenshot();
    const observation = secrets.redact(read.observation);
    const start: StepStart = { startedAt, observation, screenshot };
    const afterSignIn = state.justSignedIn;
    state.justSignedIn = false;

    this.ctx.doing = `recording what step ${state.step} saw in the store`;
    await progress.observe(observation);
    const finalReview = isFinalReviewPage(observation, o.profile);
    o.gate.setPage({ finalReview });
    // What the portal says it will file, beside the case: named on the card of the request that leaves this page.
    // Rows with "Change" links come from the observation; a review page that lists them otherwise (a plain `<dl>` or table) is read from the page itself.
    state.review = finalReview ? (reviewedValues(observation, o.caseFile, state.clerkValues) ?? (await reviewedOnPage(o.page, o.caseFile, state.clerkValues))) : null;
    if (o.gate.submissionsSent === 0) for (const number of applicationNumbersIn(observation, o.profile)) state.numbersBeforeSubmission.add(number);

    let proof: Promise<DoneProof> | undefined;
    const turn: PortalTurn = { read, observation, afterSignIn, proof: () => (proof ??= proofOnPage(read, this.ctx)) };
    for (const handler of PORTAL_HANDLERS) {
      this.ctx.doing = `handling the page at step ${state.step} (${handler.id})`;
      const outcome = await handler.handle(turn, this.ctx);
      if (outcome.kind === 'pass') continue;
      if (outcome.step) await this.record(start, { reasoning: outcome.step.reasoning, model: null, actions: outcome.step.actions ?? [], after: outcome.step.after ?? null });
      return outcome.kind === 'end' ? outcome.ending : undefined;
    }

    this.ctx.doing = `waiting for the planner (${o.planner.id}) at step ${state.step}`;
    const planned = await planTurn(read, screenshot, this.ctx);
    if (planned.kind === 'end') return planned.ending;
    const { turn: proposed, call, source } = planned.plan;
    const { valid, malformed } = validActions(proposed);
    const { actions, ending } = await this.carryOut(valid, read);
    const recorded = [...malformed, ...actions];
    await this.record(start, { reasoning: proposed.reasoning, model: call, actions: recorded, source });
    state.previous = recorded;
    return ending;
  }

  /** The turn's actions through the pipeline in order, until one does not complete or ends the run. */
  private async carryOut(turnActions: readonly Action[], read: PageRead): Promise<{ actions: StepAction[]; ending?: RunEnding }> {
    const actions: StepAction[] = [];
    for (const [i, action] of turnActions.entries()) {
      const next = turnActions[i + 1];
      const moreTypingFollows = TYPING_ACTIONS.has(action.type) && next !== undefined && TYPING_ACTIONS.has(next.type);
      this.ctx.doing = `carrying out ${action.type} at step ${this.ctx.state.step}`;
      const result = await runAction(action, read, moreTypingFollows, this.ctx);
      actions.push(result.action);
      if (result.kind === 'end' || result.action.outcome.status !== 'done') {
        actions.push(...turnActions.slice(i + 1).map((rest) => notReached(rest, read)));
        return result.kind === 'end' ? { actions, ending: result.ending } : { actions };
      }
    }
    return { actions };
  }

  private async record(start: StepStart, parts: { reasoning: string; model: ModelCall | null; actions: StepAction[]; after?: Uint8Array | null; source?: StepSource }): Promise<void> {
    const { o, state, secrets } = this.ctx;
    // Past the time limit the run has ended, and a desk that lost its hold writes nothing: work that was under way records nothing more.
    if (this.ctx.deadline.signal.aborted || this.ctx.lostHold) return;
    this.ctx.doing = `recording step ${state.step} in the store`;
    const observation = secrets.redact(start.observation);
    const events = [...state.pendingEvents.splice(0), ...this.pageErrors.take()];
    // What the egress lock let through and refused since the last step, as data (none where the context has no lock of ours).
    const requests = egressLockOf(o.page.context())?.takeRequests() ?? [];
    // The after picture, once the actions ran and the page settled; at a gated step, the whole page as the clerk was asked.
    const after = parts.after ? { png: parts.after } : await takePicture(o.page, 'after');
    if (after.problem) events.push({ type: 'screenshot_failed', message: after.problem, at: this.ctx.now().toISOString() });
    const pictures = { after: after.png, fullPage: state.gatedFullPage };
    state.gatedFullPage = null;
    const step: StepRecord = secrets.redact({
      runId: o.runId,
      index: state.step,
      startedAt: start.startedAt,
      endedAt: this.ctx.now().toISOString(),
      observation,
      observationHash: digest(observation),
      screenshotHash: start.screenshot ? sha256Hex(start.screenshot) : null,
      afterScreenshotHash: pictures.after ? sha256Hex(pictures.after) : null,
      ...(pictures.fullPage ? { fullPageHash: sha256Hex(pictures.fullPage) } : {}),
      reasoning: parts.reasoning,
      model: parts.model,
      ...(parts.source ? { source: parts.source } : {}),
      actions: parts.actions,
      events,
      ...(requests.length ? { requests } : {}),
    });
    if (step.requests) step.requestsSha256 = digest(step.requests);
    await o.recorder.recordStep(step, start.screenshot, { after: pictures.after, fullPage: pictures.fullPage });
    o.listener?.step?.(step);
    state.step += 1;
  }
}

/** The run's browser is no longer there (it crashed or was killed). */
function browserGone(page: RunLoopOptions['page']): boolean {
  const browser = page.context().browser();
  return browser !== null && !browser.isConnected();
}
