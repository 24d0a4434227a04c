import type { Page } from 'playwright-core';
import { digest, sha256Hex } from '../../base/canonical-json';
import { Action, hasRef, MAX_ACTIONS_PER_TURN } from '../../shared/action';
import type { CaseFile } from '../../shared/case-file';
import { heldRequestLine, type ApprovalDecision, type CarriedValueOrigin, type HeldRequest } from '../../shared/clerk';
import type { CommitGate, GateRecord } from '../guard/commit-gate';
import { firstUnseen } from '../portal/proof';
import { SECRET_INPUT_KINDS, type ApprovalGate, type InputKind, type InputSource } from '../../shared/clerk';
import { describeAction } from '../../shared/describe-action';
import type { Outcome } from '../../shared/outcome';
import type { PortalProfile } from '../../shared/portal-profile';
import type { RunRecorder } from '../../shared/recorder';
import type { ApproveMode, ModelCall, RunStatus, StepAction, StepEvent, StepRecord } from '../../shared/run';
import type { Verdict } from '../../shared/verdict';
import { executeAction, TYPING_ACTIONS } from '../act/executor';
import { withGatedControls } from '../decide/gated-controls';
import { isModelServiceStop, PlannerError, type CaseView, type Planner } from '../decide/planner';
import { checkAction, resolveValue } from '../guard/guard';
import type { GuardContext } from '../guard/guard-context';
import type { Observer, PageRead } from '../observe/page-read';
import { detectBotChallenge } from '../portal/bot-check';
import type { CredentialSource, LoginStateStore } from '../../shared/credentials';
import { findSaveDraftControl, sectionKey } from '../portal/draft';
import { findInterruption } from '../portal/interruption';
import { enterOneTimeCode, findOneTimeCodeField, maskCode } from '../portal/one-time-code';
import { findApplicationNumber, isConfirmationPage, isFinalReviewPage } from '../portal/page-kind';
import { fetchReceipt, type Receipt } from '../portal/receipt';
import { isSignInPage, signIn } from '../portal/sign-in';
import { ProgressTracker } from './progress-tracker';
import { DEFAULT_LIMITS, type RunLimits } from './limits';
import { SecretList } from './secrets';
import { errorText } from '../../base/error-text';

/** Live notifications for a console or a terminal. */
export interface RunListener {
  step?(step: StepRecord): void;
  status?(status: RunStatus, reason: string | undefined): void;
  log?(line: string): void;
}

/** Where the acknowledgement of a submission is kept (the store holds only its hash and size). */
export interface ReceiptKeeper {
  /** Keeps the bytes; answers where, for the step log (e.g. `receipts/<sha256>.html`). */
  keep(receipt: Receipt & { sha256: string; runId: string; applicationNumber: string }): Promise<string>;
}

export interface RunLoopOptions {
  runId: string;
  page: Page;
  profile: PortalProfile;
  caseFile: CaseFile;
  planner: Planner;
  observer: Observer;
  recorder: RunRecorder;
  approvals: ApprovalGate;
  inputs: InputSource;
  credentials: CredentialSource;
  approveMode: ApproveMode;
  limits?: Partial<RunLimits>;
  listener?: RunListener;
  /** The step index to start at (a resumed run continues its numbering). */
  firstStep?: number;
  /** Clerk answers already given in an earlier life of this run. */
  clerkValues?: Record<string, string>;
  /** Saved login state per client and portal: refreshed after every sign-in by code. */
  loginStates?: LoginStateStore;
  /** Keeps the receipt fetched once the confirmation shows. */
  receipts?: ReceiptKeeper;
  /**
   * The run's commit gate (installed below the page by `installWatchdogs`): the loop answers its
   * held requests (asking the clerk), tells it the page it is on and what is acting, and reads
   * back what it sent or refused.
   */
  gate: CommitGate;
  now?: () => Date;
}

export interface RunResult {
  /** `interrupted`: the model service stopped the run (overloaded, refusal, cut-off reply); `resume` continues it. */
  status: Extract<RunStatus, 'done' | 'failed' | 'blocked' | 'interrupted'>;
  reason: string;
  applicationNumber?: string;
  steps: number;
  approvals: number;
}

class RunEnd extends Error {
  constructor(readonly result: Omit<RunResult, 'steps' | 'approvals'>) {
    super(result.reason);
  }
}

const SUBMIT_WORD = /\bsubmit\b/i;
/** Guard events the model is told of (it may have caused them, and they change what the page can do). */
const BROWSER_REFUSALS = new Set(['download_blocked', 'navigation_blocked', 'popup_closed', 'permission_denied']);
const MAX_SIGN_INS = 4;
/** Unreadable applications lists in a row before the run stops instead of risking a second submission. */
const MAX_LIST_FAILURES = 3;
/** Dialogs code declines per run; one that keeps coming back after that is the planner's to deal with. */
const MAX_INTERRUPTIONS = 6;
const REFUSED_LOGIN = /\b(incorrect|invalid|wrong|not recogni[sz]ed|locked|failed)\b/i;
/** Inputs a screenshot never shows: passwords and one-time codes. */
const MASKED_INPUTS = 'input[type=password], input[autocomplete="one-time-code"]';

/**
 * The act–observe loop: observe → decide → guard → approval → act → observe, until the
 * run is done with proof, fails, is blocked, or reaches its step cap or time limit.
 * Code, not the model, signs in, types one-time codes and decides what is allowed.
 */
export class RunLoop {
  private readonly limits: RunLimits;
  private readonly now: () => Date;
  private readonly secrets = new SecretList();
  private readonly clerkValues: Record<string, string>;
  private readonly pendingEvents: StepEvent[] = [];
  private readonly progress: ProgressTracker;
  private notes: string[] = [];
  /** The model's reasoning for the turn being carried out, for the approval card. */
  private turnReasoning: string | undefined;
  private previous: StepAction[] = [];
  private step: number;
  private signIns = 0;
  private approvalsGiven = 0;
  /** Code signed in (or typed a sign-in code) in the previous step. */
  private justSignedIn = false;
  /** The applications list was read since the last sign-in. */
  private listChecked = false;
  private listFailures = 0;
  /** Sections where code already saved the draft in this life of the run. */
  private readonly checkpoints = new Set<string>();
  private receiptKept = false;
  /** Cookie banners and survey dialogs code declined in this life of the run. */
  private interruptionsDeclined = 0;
  /** Application numbers the portal showed before this run sent its submission: none of them proves it. */
  private readonly numbersBeforeSubmission = new Set<string>();
  /** The loop's own check before the final submit passed (applications list read): the next submission may go. */
  private submissionCleared = false;
  /** The last picture of the page (a held navigation can keep a fresh one from being taken). */
  private lastScreenshot: Uint8Array | null = null;
  /** A request the gate held was denied: the run ends once the action that caused it is recorded. */
  private denial: string | undefined;

  constructor(private readonly o: RunLoopOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.now = o.now ?? (() => new Date());
    this.step = o.firstStep ?? 0;
    this.clerkValues = { ...o.clerkValues };
    this.progress = new ProgressTracker(o.recorder, o.caseFile, this.now, () => this.plainClerkValues());
    o.gate.setJudge({
      approve: (held, step) => this.approveRequest(held, step),
      origin: (value) => this.originOf(value),
      beforeSubmission: () => this.beforeSubmissionRequest(),
    });
    o.gate.onRecord((record) => this.gateRecord(record));
  }

  /** Something code saw outside the model's actions (a blocked pop-up, a dismissed dialog...). */
  note(type: string, message: string): void {
    const redacted = this.secrets.redact(message);
    this.pendingEvents.push({ type, message: redacted, at: this.now().toISOString() });
    this.o.listener?.log?.(`  ! ${type}: ${redacted}`);
    // What the browser refused on the page's or the model's behalf is told to the model next turn.
    if (BROWSER_REFUSALS.has(type)) this.notes.push(`The browser ${redacted.charAt(0).toLowerCase()}${redacted.slice(1)}`);
  }

  /** Registers a secret that must never be written down (a vault password). */
  addSecret(secret: string): void {
    this.secrets.add(secret);
    this.o.recorder.registerSecret(secret, this.o.runId);
  }

  async run(): Promise<RunResult> {
    const started = Date.now();
    const lastStep = this.step + this.limits.maxSteps;
    await this.progress.load();
    await this.planner().start(this.caseView());
    this.o.listener?.log?.(`planner: ${this.planner().id} — ${this.planner().description}`);
    try {
      if (this.step > 0) {
        this.note('resumed', `Resumed at step ${this.step}: the progress record is read again and nothing is submitted twice`);
        const resumeNote = this.progress.resumeNote();
        this.notes.push(`This run was resumed after its process stopped.${resumeNote ? ` ${resumeNote}` : ''}`);
      }
      await this.gotoStart();
      while (this.step < lastStep) {
        if (Date.now() - started > this.limits.timeLimitMs) {
          throw new RunEnd({ status: 'failed', reason: `Time limit reached (${Math.round(this.limits.timeLimitMs / 1000)} s) before the form was submitted` });
        }
        await this.oneStep();
      }
      throw new RunEnd({ status: 'failed', reason: `Step cap reached (${this.limits.maxSteps} steps) before the form was submitted` });
    } catch (err) {
      const end = err instanceof RunEnd ? err.result : { status: 'failed' as const, reason: `Run stopped by an error: ${errorText(err)}` };
      const reason = this.secrets.redact(end.reason);
      await this.o.recorder.updateRun(this.o.runId, {
        status: end.status,
        reason,
        applicationNumber: end.applicationNumber,
        endedAt: this.now().toISOString(),
      });
      this.o.listener?.status?.(end.status, reason);
      return { ...end, reason, steps: this.step, approvals: this.approvalsGiven };
    }
  }

  private planner(): Planner {
    return this.o.planner;
  }

  private caseView(): CaseView {
    const c = this.o.caseFile;
    return { caseId: c.caseId, portal: c.portal, task: c.task, fields: { ...c.fields }, aliases: c.aliases, declarations: c.declarations };
  }

  /** The clerk's answers that are not secrets (missing values): these join the case. */
  private plainClerkValues(): Record<string, string> {
    const secrets = this.secrets.all();
    return Object.fromEntries(Object.entries(this.clerkValues).filter(([, v]) => !secrets.includes(v)));
  }

  private async gotoStart(): Promise<void> {
    const start = this.o.profile.startUrl;
    this.note('navigation', `Opening the portal at ${start}`);
    await this.goto(start);
  }

  /** Code's own navigation (through the gate as code's); a slow portal gets a second try before the run stops. */
  private async goto(url: string): Promise<void> {
    await this.asCode(`open ${url}`, async () => {
      try {
        await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      } catch (err) {
        this.note('navigation', `${url} did not load (${errorText(err)}); trying again`);
        await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      }
    });
  }

  private async setStatus(status: RunStatus, reason?: string): Promise<void> {
    await this.o.recorder.updateRun(this.o.runId, { status, reason });
    this.o.listener?.status?.(status, reason);
  }

  /** One turn of the loop, recorded as one step. */
  private async oneStep(): Promise<void> {
    // A request the page sent on its own may still wait for the clerk: the page is read after the answer.
    await this.o.gate.idle();
    this.endIfDenied();
    const startedAt = this.now().toISOString();
    const read = await this.o.observer.read(this.o.page);
    const screenshot = await this.screenshot();
    const observation = this.secrets.redact(read.observation);
    const record = (fields: { reasoning: string; model: ModelCall | null; actions: StepAction[] }): Promise<void> =>
      this.record({ startedAt, observation, screenshot, ...fields });
    const byCode = (reasoning: string, actions: StepAction[] = []): Promise<void> => record({ reasoning, model: null, actions });
    const afterSignIn = this.justSignedIn;
    this.justSignedIn = false;

    await this.progress.observe(observation);
    this.o.gate.setPage({ finalReview: isFinalReviewPage(observation, this.o.profile) });
    if (this.o.gate.submissionsSent === 0) for (const number of applicationNumbersIn(observation, this.o.profile)) this.numbersBeforeSubmission.add(number);

    const challenge = detectBotChallenge(this.o.page, observation);
    if (challenge) {
      this.note('bot_challenge', `The portal shows ${challenge}. Over to the clerk: solve it in the portal, then start the run again.`);
      this.o.listener?.log?.(`HAND-OFF: ${this.o.profile.name} shows ${challenge} for client ${this.o.caseFile.clientId}; solve it in the portal by hand, then run the case again.`);
      await byCode('Bot check detected by code; the model is not asked and the clerk is not asked to type anything.');
      throw new RunEnd({ status: 'blocked', reason: `bot_challenge: ${challenge}` });
    }

    if (await this.declineInterruption(read, byCode)) {
      // The page under the dialog is read again next step; a sign-in that just happened still counts.
      this.justSignedIn = afterSignIn;
      return;
    }

    if (isSignInPage(observation, this.o.profile)) {
      if (afterSignIn) this.refusedLogin(observation);
      await this.signInByCode(read);
      await byCode('Sign-in page: code signs in from stored credentials; the model is paused.');
      return;
    }

    const codeField = findOneTimeCodeField(observation, this.o.profile);
    if (codeField) {
      const code = await this.askClerk('otp', 'The portal sent a one-time code to the client’s phone. Type the code.', null);
      if (code === null) throw new RunEnd({ status: 'failed', reason: 'The clerk did not type the one-time code' });
      this.addSecret(code);
      const typed = await this.asCode('type the one-time code the clerk gave', () => enterOneTimeCode(read, codeField, code));
      this.note('otp', typed.ok ? `One-time code ${maskCode(code)} typed by code` : typed.message);
      await byCode('One-time code page: the clerk typed the code; code entered it. The model never sees the code.');
      this.notes.push('A one-time code was entered by code on the clerk’s behalf.');
      this.justSignedIn = true;
      return;
    }

    if (afterSignIn) {
      await this.saveLoginState();
      if (await this.backToStartAfterSignIn(observation)) {
        await byCode('Signed in again with work in progress: code opened the portal’s start page, where the saved draft is offered.');
        return;
      }
    }

    const proof = await this.proofOnPage(read);
    if (proof.ok) {
      await this.keepReceipt(observation, proof.applicationNumber);
    } else if (!isConfirmationPage(observation, this.o.profile) && this.progress.mayHaveSubmitted && !this.listChecked && this.o.profile.applicationsUrl) {
      await this.checkEarlierSubmission(byCode);
    }

    if (await this.checkpoint(read, byCode)) return;

    const planned = await this.decide(read, screenshot);
    const actions: StepAction[] = [];
    let end: RunEnd | undefined;
    const { valid: turnActions, malformed } = validActions(planned.turn);
    actions.push(...malformed);
    try {
      for (const [i, action] of turnActions.entries()) {
        const next = turnActions[i + 1];
        const moreTypingFollows = TYPING_ACTIONS.has(action.type) && next !== undefined && TYPING_ACTIONS.has(next.type);
        const done = await this.handle(action, read, moreTypingFollows);
        actions.push(done);
        if (done.outcome.status !== 'done') break;
      }
    } catch (err) {
      if (!(err instanceof RunEndWithAction)) throw err;
      actions.push(err.stepAction);
      end = err.end;
    }
    const ran = new Set(actions.map((a) => a.action));
    for (const action of turnActions) {
      if (!ran.has(action)) actions.push(this.skipped(action, read));
    }
    await record({ reasoning: planned.turn.reasoning, model: planned.call, actions });
    this.previous = actions;
    if (end) throw end;
  }

  /** The sign-in page came straight back after code signed in, with an error: the stored login is wrong. */
  private refusedLogin(observation: PageRead['observation']): void {
    const refusal = observation.errors.map((e) => e.message).find((m) => REFUSED_LOGIN.test(m));
    if (!refusal) return;
    throw new RunEnd({
      status: 'failed',
      reason: `The portal refused the stored login for client ${this.o.caseFile.clientId} on ${this.o.profile.id} ("${refusal}"); update it with "portal-desk vault set", then run the case again`,
    });
  }

  /** After a sign-in mid-form the portal may land on a page of a lost session: start from the dashboard. */
  private async backToStartAfterSignIn(observation: PageRead['observation']): Promise<boolean> {
    if (!this.progress.hasWorkInProgress && !this.progress.mayHaveSubmitted) return false;
    if (isConfirmationPage(observation, this.o.profile)) return false;
    const here = new URL(observation.url);
    const start = new URL(this.o.profile.startUrl);
    if (here.host === start.host && here.pathname === start.pathname) return false;
    const draft = this.progress.current.draftId;
    this.note('reopen_draft', `Signed in again mid-form: opening ${start.href} to continue ${draft ? `saved draft ${draft}` : 'the saved work'} instead of a new application`);
    await this.goto(start.href);
    return true;
  }

  /** Saves the context's cookies and storage for the next run of this client (encrypted by the store). */
  private async saveLoginState(): Promise<void> {
    if (!this.o.loginStates) return;
    try {
      const state = await this.o.page.context().storageState();
      await this.o.loginStates.save(this.o.caseFile.clientId, this.o.profile.id, JSON.stringify(state));
    } catch (err) {
      this.note('login_state_not_saved', errorText(err));
    }
  }

  /**
   * A submit may have gone through earlier (a lost confirmation, a killed process): the
   * applications list answers before anything else happens. Found: the run ends `done`.
   */
  private async checkEarlierSubmission(byCode: (reasoning: string) => Promise<void>): Promise<void> {
    const check = await this.progress.checkApplicationsList(this.o.page, this.o.profile);
    if (check.kind === 'found') {
      const proof = `application ${check.applicationNumber} on the applications list (${check.matchedBy})`;
      this.note('already_submitted', `An earlier submit went through: ${proof}. Not submitting again.`);
      await byCode('An earlier attempt submitted this case: code found it on the portal’s applications list.');
      throw new RunEnd({ status: 'done', reason: `Already submitted earlier: ${proof}`, applicationNumber: check.applicationNumber });
    }
    if (check.kind === 'absent') {
      this.listChecked = true;
      this.listFailures = 0;
      this.note('applications_list', 'An earlier submit was started but this case is not on the applications list: the form goes on');
    } else {
      // Tried again after the next sign-in, and always right before any submit.
      this.listChecked = true;
      this.note('applications_list', `Could not check the applications list yet: ${check.reason}`);
    }
  }

  /**
   * A checkpoint: as a new form section opens, code presses the portal's "Save draft" so that
   * every section done so far survives a lost session. Once per section in each life of the run.
   */
  private async checkpoint(read: PageRead, byCode: (reasoning: string, actions: StepAction[]) => Promise<void>): Promise<boolean> {
    const observation = read.observation;
    const key = sectionKey(observation);
    if (!key || !observation.flowStep || this.checkpoints.has(key) || observation.errors.length > 0) return false;
    if (this.progress.current.sectionsDone.length === 0 || this.progress.current.applicationNumber) return false;
    const save = findSaveDraftControl(observation);
    if (!save) return false;
    this.checkpoints.add(key);
    const action: Action = { type: 'click', ref: save.ref };
    const verdict = checkAction(action, this.guardContext(read));
    if (verdict.verdict !== 'allow') return false;
    const outcome = await this.asCode(`save the draft with ${save.label}`, () => executeAction(this.o.page, read, action));
    this.note('draft_checkpoint', outcome.status === 'done' ? `Saved the draft as "${key}" opened` : `Saving the draft failed: ${outcome.message ?? outcome.status}`);
    await byCode('A new section opened: code saved the draft first, so a lost session resumes from here.', [{ action, element: save.label, verdict, outcome }]);
    return true;
  }

  /**
   * A cookie banner or survey dialog covering the page: code declines it (the model is not asked),
   * through the guard like any click. A dialog that keeps coming back is left to the planner.
   */
  private async declineInterruption(read: PageRead, byCode: (reasoning: string, actions: StepAction[]) => Promise<void>): Promise<boolean> {
    if (this.interruptionsDeclined >= MAX_INTERRUPTIONS) return false;
    const found = await findInterruption(read);
    if (!found) return false;
    const action: Action = { type: 'click', ref: found.control.ref };
    const verdict = checkAction(action, this.guardContext(read));
    if (verdict.verdict !== 'allow') return false;
    const effect = found.effect;
    if (effect.kind !== 'stays') {
      // Code declines by itself only when what the button sends is free; anything else is the clerk's to approve.
      const judged = this.o.gate.classify(effect.kind === 'submits' ? effect.method : 'GET', effect.url);
      if (judged.kind !== 'free') {
        this.interruptionsDeclined = MAX_INTERRUPTIONS;
        this.note('interruption', `"${found.title}" covers the page, but its "${found.control.name}" button ${effect.kind === 'submits' ? 'sends a form to' : 'goes to'} ${effect.url} (${judged.reason}); code does not press it, the planner and the clerk decide`);
        return false;
      }
    }
    this.interruptionsDeclined += 1;
    const outcome = await this.asCode(`decline "${found.title}" with ${found.control.label}`, () => executeAction(this.o.page, read, action));
    this.note('interruption', outcome.status === 'done' ? `Declined "${found.title}" with "${found.control.name}"` : `Declining "${found.title}" failed: ${outcome.message ?? outcome.status}`);
    await byCode(`"${found.title}" covered the page: code declined it; the model is not asked.`, [{ action, element: found.control.label, verdict, outcome }]);
    return true;
  }

  /** Fetches the acknowledgement once the confirmation shows and keeps it as proof of submission. */
  private async keepReceipt(observation: PageRead['observation'], applicationNumber: string): Promise<void> {
    if (this.receiptKept) return;
    this.receiptKept = true;
    try {
      const { receipt, notes } = await fetchReceipt(this.o.page, observation, this.o.profile);
      for (const line of notes) this.note('receipt', line);
      if (!receipt) return;
      const sha256 = sha256Hex(receipt.bytes);
      const text = Buffer.from(receipt.bytes).toString('utf8');
      if (this.secrets.all().some((s) => text.includes(s))) {
        this.note('receipt', `Receipt sha256 ${sha256} (${receipt.bytes.byteLength} bytes) holds a secret: hash recorded, bytes not kept`);
        return;
      }
      const where = this.o.receipts ? await this.o.receipts.keep({ ...receipt, sha256, runId: this.o.runId, applicationNumber }) : 'not kept (no receipt folder)';
      this.note(
        'receipt',
        `Acknowledgement of ${applicationNumber}: ${receipt.kind === 'receipt_link' ? 'receipt' : 'confirmation page'} ${receipt.url}, ${receipt.contentType.split(';')[0]}, sha256 ${sha256}, ${receipt.bytes.byteLength} bytes, kept at ${where}`,
      );
    } catch (err) {
      this.note('receipt', `The acknowledgement could not be kept: ${errorText(err)}`);
    }
  }

  private async decide(read: PageRead, screenshot: Uint8Array | null) {
    try {
      const result = await this.planner().decide({
        step: this.step,
        observation: withGatedControls(this.secrets.redact(read.observation), this.o.profile.riskyWords),
        previous: this.previous,
        notes: this.notes,
        clerkFields: this.plainClerkValues(),
        screenshot: async () => {
          const png = screenshot ?? (await this.screenshot());
          if (!png) throw new Error('no screenshot of this page');
          return png;
        },
      });
      this.notes = [];
      this.turnReasoning = result.turn.reasoning;
      return result;
    } catch (err) {
      if (err instanceof PlannerError) {
        if (isModelServiceStop(err.kind)) {
          // Nothing ran for this step and the store holds everything before it: resumable.
          throw new RunEnd({ status: 'interrupted', reason: `Stopped by the model service at step ${this.step} (${err.kind}): ${err.message} Continue with "portal-desk resume ${this.o.runId}".` });
        }
        const reason = err.kind === 'auth' ? 'API key rejected' : `The planner could not continue (${err.kind}): ${err.message}`;
        throw new RunEnd({ status: 'failed', reason });
      }
      throw err;
    }
  }

  private guardContext(read: PageRead): GuardContext {
    return {
      profile: this.o.profile,
      caseFile: this.o.caseFile,
      clerkValues: this.clerkValues,
      observation: read.observation,
      control: (ref) => read.control(ref),
    };
  }

  /** Guard, approval and execution of one proposed action. */
  private async handle(action: Action, read: PageRead, moreTypingFollows = false): Promise<StepAction> {
    const element = hasRef(action) ? read.control(action.ref)?.label : undefined;
    const base = { action, element };
    const started = Date.now();
    const ms = () => Date.now() - started;

    switch (action.type) {
      case 'done': {
        const proof = await this.proofOnPage(read);
        const verdict: Verdict = { verdict: 'allow', rule: 'proof', reason: 'done is checked against the page and the requests this run sent' };
        if (!proof.ok) {
          return { ...base, verdict, outcome: { status: 'error', message: `done refused: ${proof.reason}`, ms: ms() } };
        }
        const number = proof.applicationNumber;
        throw new RunEndWithAction(
          { ...base, verdict, outcome: { status: 'done', message: `proof: ${number}`, ms: ms() } },
          new RunEnd({ status: 'done', reason: `Submitted: application number ${number}`, applicationNumber: number }),
        );
      }
      case 'fail': {
        const verdict: Verdict = { verdict: 'allow', rule: 'end', reason: 'the planner gave up' };
        throw new RunEndWithAction(
          { ...base, verdict, outcome: { status: 'done', ms: ms() } },
          new RunEnd({ status: 'failed', reason: `The planner gave up: ${action.reason}` }),
        );
      }
      case 'ask':
        return this.handleAsk(action, base, ms);
      default:
        break;
    }

    const verdict = checkAction(action, this.guardContext(read));
    if (verdict.verdict === 'block') {
      // A ref from another read goes back to the model as `unknown_ref`: an error it can act on, never a click.
      const status = verdict.rule === 'unknown-ref' ? 'unknown_ref' : 'blocked';
      this.o.listener?.log?.(`  ${status}: ${verdict.reason}`);
      return { ...base, verdict, outcome: { status, message: verdict.reason, ms: ms() } };
    }
    let approval: StepAction['approval'];
    if (verdict.verdict === 'needs_approval') {
      const reason = `Waiting for approval: ${describeAction(action, element)} (${verdict.reason})`;
      await this.setStatus('awaiting_approval', reason);
      const decision = await this.o.approvals.request({
        runId: this.o.runId,
        step: this.step,
        action,
        element,
        verdict,
        ...(this.turnReasoning ? { reasoning: this.secrets.redact(this.turnReasoning) } : {}),
        screenshotBase64: Buffer.from((await this.screenshot()) ?? new Uint8Array()).toString('base64') || undefined,
      });
      approval = { decision: decision.decision, by: decision.by, at: this.now().toISOString(), note: decision.note };
      if (decision.decision === 'deny') {
        throw new RunEndWithAction(
          { ...base, verdict, approval, outcome: { status: 'denied', message: `denied by ${decision.by}`, ms: ms() } },
          new RunEnd({ status: 'failed', reason: `Denied by ${decision.by}: ${describeAction(action, element)}` }),
        );
      }
      this.approvalsGiven += 1;
      await this.setStatus('running');
    }

    if (this.isSubmission(action, read)) {
      const decision = await this.progress.beforeSubmit(this.o.page, this.o.profile);
      if (decision.kind === 'found') {
        this.note('already_submitted', `An earlier submit went through: ${decision.proof}. Not submitting again.`);
        throw new RunEndWithAction(
          { ...base, verdict, approval, outcome: { status: 'skipped', message: `already submitted as ${decision.applicationNumber}; not submitting again`, ms: ms() } },
          new RunEnd({ status: 'done', reason: `Already submitted earlier: ${decision.proof}`, applicationNumber: decision.applicationNumber }),
        );
      }
      if (decision.kind === 'unsure') {
        this.listFailures += 1;
        const message = `not clicked: an earlier submit may have gone through and ${decision.reason}`;
        if (this.listFailures >= MAX_LIST_FAILURES) {
          throw new RunEndWithAction(
            { ...base, verdict, approval, outcome: { status: 'skipped', message, ms: ms() } },
            new RunEnd({
              status: 'blocked',
              reason: `An earlier submit may have gone through and the applications list could not be read (${decision.reason}); not submitting again. Check ${this.o.profile.applicationsUrl ?? 'the portal'} by hand.`,
            }),
          );
        }
        // Reloading shows whether the session is still there; a lost one is signed in again.
        await this.o.page.reload({ waitUntil: 'domcontentloaded', timeout: 30_000 }).catch(() => undefined);
        return { ...base, verdict, approval, outcome: { status: 'skipped', message, ms: ms() } };
      }
      this.listFailures = 0;
      this.submissionCleared = true;
    }

    const value = action.type === 'fill' || action.type === 'select' ? resolveValue(action, this.guardContext(read)) : undefined;
    const control = hasRef(action) ? read.control(action.ref) : undefined;
    let outcome: Outcome;
    try {
      outcome = await this.o.gate.during(
        { step: this.step, description: describeAction(action, element), approved: approval?.decision === 'approve', expectedUrl: action.type === 'click' ? control?.href : undefined },
        () => executeAction(this.o.page, read, action, value, moreTypingFollows ? { settle: { moreTypingFollows } } : {}),
      );
    } finally {
      this.submissionCleared = false;
    }
    const reason = this.takeDenial();
    if (reason) {
      throw new RunEndWithAction(
        { ...base, verdict, approval, outcome: { status: 'denied', message: reason, ms: ms() } },
        new RunEnd({ status: 'failed', reason }),
      );
    }
    if (outcome.status === 'done' && action.type === 'click') await this.progress.clicked(control, read.observation);
    return { ...base, verdict, approval, outcome };
  }

  private async handleAsk(action: Extract<Action, { type: 'ask' }>, base: { action: Action; element?: string }, ms: () => number): Promise<StepAction> {
    const verdict: Verdict = { verdict: 'allow', rule: 'ask', reason: 'questions go to the clerk' };
    if (action.kind === 'missing_value' && !action.field) {
      return { ...base, verdict, outcome: { status: 'error', message: 'ask missing_value needs the case field the answer fills', ms: ms() } };
    }
    const answer = await this.askClerk(action.kind, action.question, action.field);
    if (answer === null) {
      throw new RunEndWithAction(
        { ...base, verdict, outcome: { status: 'denied', message: 'the clerk declined to answer', ms: ms() } },
        new RunEnd({ status: 'failed', reason: `The clerk declined to answer: ${action.question}` }),
      );
    }
    if (action.kind === 'confirmation') {
      if (!/^(y|yes|ok|confirm|confirmed)$/i.test(answer.trim())) {
        throw new RunEndWithAction(
          { ...base, verdict, outcome: { status: 'denied', message: 'the clerk did not confirm', ms: ms() } },
          new RunEnd({ status: 'failed', reason: `The clerk did not confirm: ${action.question}` }),
        );
      }
      this.notes.push(`The clerk confirmed: ${action.question}`);
    } else if (action.field) {
      this.clerkValues[action.field] = answer;
      if (action.kind === 'security_answer') this.addSecret(answer);
      else await this.saveClerkAnswer(action.field, answer);
      this.notes.push(`The clerk supplied case field "${action.field}"; fill it by that name.`);
    }
    const shown = action.kind === 'missing_value' ? answer : maskCode(answer);
    return { ...base, verdict, outcome: { status: 'done', message: `clerk answered ${shown}`, ms: ms() } };
  }

  private async saveClerkAnswer(field: string, answer: string): Promise<void> {
    const run = await this.o.recorder.getRun(this.o.runId);
    if (!run) return;
    const stored = JSON.parse(run.caseJson) as { clerkValues?: Record<string, string> };
    stored.clerkValues = { ...stored.clerkValues, [field]: answer };
    await this.o.recorder.updateRun(this.o.runId, { caseJson: JSON.stringify(stored) });
  }

  private async askClerk(kind: InputKind, question: string, field: string | null): Promise<string | null> {
    await this.setStatus('awaiting_input', `Waiting for you: ${kind === 'otp' ? 'type the one-time code' : question}`);
    const answer = await this.o.inputs.ask({ runId: this.o.runId, step: this.step, kind, question, field });
    if (answer !== null && SECRET_INPUT_KINDS.includes(kind)) this.addSecret(answer);
    await this.setStatus('running');
    return answer;
  }

  private async signInByCode(read: PageRead): Promise<void> {
    this.signIns += 1;
    if (this.signIns > MAX_SIGN_INS) {
      throw new RunEnd({ status: 'failed', reason: `The portal asked to sign in ${MAX_SIGN_INS} times; check the stored login for this client` });
    }
    const credentials = await this.o.credentials.get(this.o.caseFile.clientId, this.o.profile.id);
    if (!credentials) {
      throw new RunEnd({
        status: 'failed',
        reason: `No stored login for client ${this.o.caseFile.clientId} on portal ${this.o.profile.id}; add one with "portal-desk vault set"`,
      });
    }
    this.addSecret(credentials.password);
    const result = await this.asCode('sign in from the vault', () => signIn(read, this.o.profile, credentials));
    this.note('sign_in', result.message);
    if (result.retry) return;
    if (!result.ok) throw new RunEnd({ status: 'failed', reason: result.message });
    this.justSignedIn = true;
    this.listChecked = false;
    const resumeNote = this.progress.resumeNote();
    this.notes.push(`Code signed in to the portal${this.signIns > 1 ? ' again (the session had expired)' : ''}.${resumeNote ? ` ${resumeNote}` : ''}`);
  }

  /** The final submit of the form: a submit-like click on the final-review page. */
  private isSubmission(action: Action, read: PageRead): boolean {
    if (action.type !== 'click') return false;
    const control = read.control(action.ref);
    return !!control && SUBMIT_WORD.test(control.name) && isFinalReviewPage(read.observation, this.o.profile);
  }

  /**
   * Code's own handling (sign-in, a code, a banner, a checkpoint) acting on the page: what it
   * sends goes through the commit gate like anything else, attributed to code, never pre-approved.
   * A request of it the clerk denies ends the run.
   */
  private asCode<T>(description: string, act: () => Promise<T>): Promise<T> {
    return this.o.gate.during({ step: this.step, description: `code: ${description}`, approved: false }, act);
  }

  /** The clerk's denial of a request the gate held, once (the run ends with it as the reason). */
  private takeDenial(): string | undefined {
    const reason = this.denial;
    this.denial = undefined;
    return reason;
  }

  /** Ends the run when the clerk denied a request the gate held (sent by the page or by code). */
  private endIfDenied(): void {
    const reason = this.takeDenial();
    if (reason) throw new RunEnd({ status: 'failed', reason });
  }

  /** Every non-free request the gate judged goes in the step log; a denial ends the run. */
  private gateRecord(record: GateRecord): void {
    this.note(record.type, record.detail);
    if (record.type === 'commit_denied' && !this.denial) {
      this.denial = `Denied by ${record.decision?.by ?? 'the clerk'}: ${heldRequestLine(record)} was not sent`;
    }
  }

  /** The clerk approves or denies one request the commit gate holds. */
  private async approveRequest(held: HeldRequest, step: number | null): Promise<ApprovalDecision> {
    const redacted = this.secrets.redact(held);
    await this.setStatus('awaiting_approval', `Waiting for approval: send ${heldRequestLine(redacted)} (${redacted.reason})`);
    try {
      const decision = await this.o.approvals.request({
        runId: this.o.runId,
        step: step ?? this.step,
        request: redacted,
        verdict: { verdict: 'needs_approval', rule: `commit-gate:${held.rule}`, reason: redacted.reason },
        // While the request is held the page may be mid-navigation, where a picture can hang: a short try, else the last one.
        screenshotBase64: Buffer.from((await this.screenshot(2_000)) ?? this.lastScreenshot ?? new Uint8Array()).toString('base64') || undefined,
      });
      if (decision.decision === 'approve') this.approvalsGiven += 1;
      return decision;
    } finally {
      await this.setStatus('running');
    }
  }

  /** Where a value a held request carries came from. */
  private originOf(value: string): { origin: CarriedValueOrigin; field?: string } {
    if (value === '') return { origin: 'not_from_case' };
    for (const [field, v] of Object.entries(this.o.caseFile.fields)) {
      if (v !== null && v !== undefined && String(v) === value) return { origin: 'case', field };
    }
    for (const [field, v] of Object.entries(this.clerkValues)) if (v === value) return { origin: 'clerk', field };
    return { origin: 'not_from_case' };
  }

  /**
   * Right before an approved submission leaves, whatever sent it: never a second one before the
   * applications list was checked, and the progress record says a submission was attempted first.
   */
  private async beforeSubmissionRequest(): Promise<{ send: true } | { send: false; reason: string }> {
    if (this.submissionCleared) {
      this.submissionCleared = false;
      return { send: true };
    }
    if (this.progress.mayHaveSubmitted) {
      return { send: false, reason: 'a submission of this case may already have gone through, and nothing is submitted again before the applications list is checked' };
    }
    await this.progress.submitAttempted();
    return { send: true };
  }

  /**
   * Proof of `done` on this page: a confirmation page (the profile's words) with an application
   * number, both visibly on the page, reached after this run sent an approved submission, and a
   * number the portal had not shown before that submission.
   */
  private async proofOnPage(read: PageRead): Promise<{ ok: true; applicationNumber: string } | { ok: false; reason: string }> {
    const number = findApplicationNumber(read.observation, this.o.profile);
    if (!number) return { ok: false, reason: 'this page is not a confirmation page with an application number' };
    if (this.o.gate.submissionsSent === 0) {
      return { ok: false, reason: `the page shows ${number}, but this run has sent no approved submission, so it proves nothing` };
    }
    if (this.numbersBeforeSubmission.has(number)) {
      return { ok: false, reason: `${number} was on the portal's pages before this run's submission, so it is not this submission's number` };
    }
    const unseen = await firstUnseen(this.o.page, [number, this.o.profile.confirmation.pageContains]);
    if (unseen !== null) return { ok: false, reason: `“${unseen}” is not visibly on the page (hidden text is no proof)` };
    await this.progress.applicationNumber(number);
    return { ok: true, applicationNumber: number };
  }

  private skipped(action: Action, read: PageRead): StepAction {
    return {
      action,
      element: hasRef(action) ? read.control(action.ref)?.label : undefined,
      verdict: { verdict: 'allow', rule: 'not-reached', reason: 'an earlier action in the turn did not complete' },
      outcome: { status: 'skipped', ms: 0 },
    };
  }

  private async screenshot(timeout = 10_000): Promise<Uint8Array | null> {
    try {
      const page = this.o.page;
      const png = await page.screenshot({ type: 'png', mask: [page.locator(MASKED_INPUTS)], timeout });
      this.lastScreenshot = png;
      return png;
    } catch (err) {
      this.note('screenshot_failed', errorText(err));
      return null;
    }
  }

  private async record(parts: {
    startedAt: string;
    observation: StepRecord['observation'];
    screenshot: Uint8Array | null;
    reasoning: string;
    model: ModelCall | null;
    actions: StepAction[];
  }): Promise<void> {
    const observation = this.secrets.redact(parts.observation);
    const step: StepRecord = this.secrets.redact({
      runId: this.o.runId,
      index: this.step,
      startedAt: parts.startedAt,
      endedAt: this.now().toISOString(),
      observation,
      observationHash: digest(observation),
      screenshotHash: parts.screenshot ? sha256Hex(parts.screenshot) : null,
      reasoning: parts.reasoning,
      model: parts.model,
      actions: parts.actions,
      events: this.pendingEvents.splice(0),
    });
    await this.o.recorder.recordStep(step, parts.screenshot);
    this.o.listener?.step?.(step);
    this.step += 1;
  }
}

/** Every match of the profile's application-number pattern on the page (its text and headings). */
function applicationNumbersIn(observation: PageRead['observation'], profile: PortalProfile): string[] {
  const pattern = new RegExp(profile.confirmation.applicationNumberPattern, 'g');
  const found: string[] = [];
  for (const text of [observation.title, ...observation.headings, observation.text]) {
    for (const match of text.matchAll(pattern)) {
      found.push(match[1] ?? match[0]);
      if (found.length >= 50) return found;
    }
  }
  return found;
}

/**
 * The planner's actions checked against the action schema, whatever the planner: a malformed
 * one is recorded as a blocked step action (never run, never a store error).
 */
function validActions(turn: unknown): { valid: Action[]; malformed: StepAction[] } {
  const listed = turn && typeof turn === 'object' && Array.isArray((turn as { actions?: unknown }).actions) ? ((turn as { actions: unknown[] }).actions) : [turn];
  const valid: Action[] = [];
  const malformed: StepAction[] = [];
  for (const candidate of listed) {
    const parsed = Action.safeParse(candidate);
    if (parsed.success) {
      valid.push(candidate as Action);
      continue;
    }
    let shown: string;
    try {
      shown = JSON.stringify(candidate) ?? String(candidate);
    } catch {
      shown = String(candidate);
    }
    const problem = parsed.error.issues[0];
    const reason = `The planner proposed a malformed action (${problem ? `${problem.path.join('.') || 'action'}: ${problem.message}` : 'invalid'}): ${shown.slice(0, 200)}`;
    malformed.push({
      action: { type: 'fail', reason: reason.slice(0, 500) },
      verdict: { verdict: 'block', rule: 'schema', reason: 'The action does not match the action schema; nothing was done.' },
      outcome: { status: 'blocked', message: 'not run: malformed', ms: 0 },
    });
  }
  if (valid.length > MAX_ACTIONS_PER_TURN) {
    for (const extra of valid.splice(MAX_ACTIONS_PER_TURN)) {
      malformed.push({ action: extra, verdict: { verdict: 'block', rule: 'schema', reason: `More than ${MAX_ACTIONS_PER_TURN} actions in one turn; this one was not run.` }, outcome: { status: 'blocked', message: 'not run: over the action cap', ms: 0 } });
    }
  }
  return { valid, malformed };
}

class RunEndWithAction extends Error {
  constructor(
    readonly stepAction: StepAction,
    readonly end: RunEnd,
  ) {
    super(end.message);
  }
}

