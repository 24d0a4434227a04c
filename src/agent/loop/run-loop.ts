import type { Page } from 'playwright-core';
import { digest, sha256Hex } from '../../base/canonical-json';
import { hasRef, type Action } from '../../shared/action';
import type { CaseFile } from '../../shared/case-file';
import { SECRET_INPUT_KINDS, type ApprovalGate, type InputKind, type InputSource } from '../../shared/clerk';
import type { Outcome } from '../../shared/outcome';
import type { PortalProfile } from '../../shared/portal-profile';
import type { RunRecorder } from '../../shared/recorder';
import type { ApproveMode, ModelCall, RunStatus, StepAction, StepEvent, StepRecord } from '../../shared/run';
import type { Verdict } from '../../shared/verdict';
import { executeAction } from '../act/executor';
import { PlannerError, type CaseView, type Planner } from '../decide/planner';
import { checkAction, resolveValue } from '../guard/guard';
import type { GuardContext } from '../guard/guard-context';
import type { Observer, PageRead } from '../observe/page-read';
import { detectBotChallenge } from '../portal/bot-check';
import type { CredentialSource } from '../../shared/credentials';
import { enterOneTimeCode, findOneTimeCodeField, maskCode } from '../portal/one-time-code';
import { findApplicationNumber, isFinalReviewPage } from '../portal/page-kind';
import { isSignInPage, signIn } from '../portal/sign-in';
import { ProgressTracker } from './progress-tracker';
import { DEFAULT_LIMITS, type RunLimits } from './limits';
import { SecretList } from './secrets';

/** Live notifications for a console or a terminal. */
export interface RunListener {
  step?(step: StepRecord): void;
  status?(status: RunStatus, reason: string | undefined): void;
  log?(line: string): void;
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
  now?: () => Date;
}

export interface RunResult {
  status: Extract<RunStatus, 'done' | 'failed' | 'blocked'>;
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
const MAX_SIGN_INS = 4;

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
  private previous: StepAction[] = [];
  private step: number;
  private signIns = 0;
  private approvalsGiven = 0;

  constructor(private readonly o: RunLoopOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.now = o.now ?? (() => new Date());
    this.step = o.firstStep ?? 0;
    this.clerkValues = { ...o.clerkValues };
    this.progress = new ProgressTracker(o.recorder, o.caseFile, this.now);
  }

  /** Something code saw outside the model's actions (a blocked pop-up, a dismissed dialog...). */
  note(type: string, message: string): void {
    this.pendingEvents.push({ type, message: this.secrets.redact(message), at: this.now().toISOString() });
    this.o.listener?.log?.(`  ! ${type}: ${message}`);
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
      if (this.step === 0) await this.gotoStart();
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

  private async gotoStart(): Promise<void> {
    const start = this.o.profile.startUrl;
    this.note('navigation', `Opening the portal at ${start}`);
    await this.o.page.goto(start, { waitUntil: 'domcontentloaded', timeout: 30_000 });
  }

  private async setStatus(status: RunStatus, reason?: string): Promise<void> {
    await this.o.recorder.updateRun(this.o.runId, { status, reason });
    this.o.listener?.status?.(status, reason);
  }

  /** One turn of the loop, recorded as one step. */
  private async oneStep(): Promise<void> {
    const startedAt = this.now().toISOString();
    const read = await this.o.observer.read(this.o.page);
    const screenshot = await this.screenshot();
    const observation = this.secrets.redact(read.observation);
    const record = (fields: { reasoning: string; model: ModelCall | null; actions: StepAction[] }): Promise<void> =>
      this.record({ startedAt, observation, screenshot, ...fields });

    await this.progress.observe(observation, this.o.profile);

    const challenge = detectBotChallenge(this.o.page, observation);
    if (challenge) {
      this.note('bot_challenge', `The portal shows ${challenge}. Over to the clerk: solve it in the portal, then start the run again.`);
      await record({ reasoning: 'Bot check detected by code; the model is not asked.', model: null, actions: [] });
      throw new RunEnd({ status: 'blocked', reason: `bot_challenge: ${challenge}` });
    }

    if (isSignInPage(observation, this.o.profile)) {
      await this.signInByCode(read);
      await record({ reasoning: 'Sign-in page: code signs in from stored credentials; the model is paused.', model: null, actions: [] });
      return;
    }

    const codeField = findOneTimeCodeField(observation, this.o.profile);
    if (codeField) {
      const code = await this.askClerk('otp', 'The portal sent a one-time code to the client’s phone. Type the code.', null);
      if (code === null) throw new RunEnd({ status: 'failed', reason: 'The clerk did not type the one-time code' });
      this.addSecret(code);
      const typed = await enterOneTimeCode(read, codeField, code);
      this.note('otp', typed.ok ? `One-time code ${maskCode(code)} typed by code` : typed.message);
      await record({ reasoning: 'One-time code page: the clerk typed the code; code entered it.', model: null, actions: [] });
      this.notes.push('A one-time code was entered by code on the clerk’s behalf.');
      return;
    }

    const planned = await this.decide(read, screenshot);
    const actions: StepAction[] = [];
    let end: RunEnd | undefined;
    try {
      for (const action of planned.turn.actions) {
        const done = await this.handle(action, read);
        actions.push(done);
        if (done.outcome.status !== 'done') break;
      }
    } catch (err) {
      if (!(err instanceof RunEndWithAction)) throw err;
      actions.push(err.stepAction);
      end = err.end;
    }
    const ran = new Set(actions.map((a) => a.action));
    for (const action of planned.turn.actions) {
      if (!ran.has(action)) actions.push(this.skipped(action, read));
    }
    await record({ reasoning: planned.turn.reasoning, model: planned.call, actions });
    this.previous = actions;
    if (end) throw end;
  }

  private async decide(read: PageRead, screenshot: Uint8Array | null) {
    try {
      const result = await this.planner().decide({
        step: this.step,
        observation: this.secrets.redact(read.observation),
        previous: this.previous,
        notes: this.notes,
        screenshot: async () => screenshot ?? (await this.o.page.screenshot({ type: 'png' })),
      });
      this.notes = [];
      return result;
    } catch (err) {
      if (err instanceof PlannerError) {
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
  private async handle(action: Action, read: PageRead): Promise<StepAction> {
    const element = hasRef(action) ? read.control(action.ref)?.label : undefined;
    const base = { action, element };
    const started = Date.now();
    const ms = () => Date.now() - started;

    switch (action.type) {
      case 'done': {
        const number = findApplicationNumber(read.observation, this.o.profile);
        const verdict: Verdict = { verdict: 'allow', rule: 'proof', reason: 'done is checked against the page' };
        if (!number) {
          return { ...base, verdict, outcome: { status: 'error', message: 'done refused: this page is not a confirmation page with an application number', ms: ms() } };
        }
        await this.progress.applicationNumber(number);
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
      this.o.listener?.log?.(`  blocked: ${verdict.reason}`);
      return { ...base, verdict, outcome: { status: 'blocked', message: verdict.reason, ms: ms() } };
    }
    let approval: StepAction['approval'];
    if (verdict.verdict === 'needs_approval') {
      const reason = `Waiting for approval: ${describe(action, element)} (${verdict.reason})`;
      await this.setStatus('awaiting_approval', reason);
      const decision = await this.o.approvals.request({
        runId: this.o.runId,
        step: this.step,
        action,
        element,
        verdict,
        screenshotBase64: Buffer.from(await this.o.page.screenshot({ type: 'png' })).toString('base64'),
      });
      approval = { decision: decision.decision, by: decision.by, at: this.now().toISOString(), note: decision.note };
      if (decision.decision === 'deny') {
        throw new RunEndWithAction(
          { ...base, verdict, approval, outcome: { status: 'denied', message: `denied by ${decision.by}`, ms: ms() } },
          new RunEnd({ status: 'failed', reason: `Denied by ${decision.by}: ${describe(action, element)}` }),
        );
      }
      this.approvalsGiven += 1;
      await this.setStatus('running');
    }

    if (this.isSubmission(action, read)) {
      const existing = await this.progress.beforeSubmit(this.o.page, this.o.profile);
      if (existing) {
        throw new RunEndWithAction(
          { ...base, verdict, approval, outcome: { status: 'skipped', message: `already submitted as ${existing}; not submitting again`, ms: ms() } },
          new RunEnd({ status: 'done', reason: `Already submitted earlier: application number ${existing} (found on the applications list)`, applicationNumber: existing }),
        );
      }
    }

    const value = action.type === 'fill' || action.type === 'select' ? resolveValue(action, this.guardContext(read)) : undefined;
    const outcome: Outcome = await executeAction(this.o.page, read, action, value);
    if (outcome.status === 'done' && action.type === 'click') await this.progress.clicked(read.control(action.ref), read.observation);
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
    const result = await signIn(read, this.o.profile, credentials);
    this.note('sign_in', result.message);
    if (!result.ok) throw new RunEnd({ status: 'failed', reason: result.message });
    const resumeNote = this.progress.resumeNote();
    this.notes.push(`Code signed in to the portal${this.signIns > 1 ? ' again (the session had expired)' : ''}.${resumeNote ? ` ${resumeNote}` : ''}`);
  }

  /** The final submit of the form: a submit-like click on the final-review page. */
  private isSubmission(action: Action, read: PageRead): boolean {
    if (action.type !== 'click') return false;
    const control = read.control(action.ref);
    return !!control && SUBMIT_WORD.test(control.name) && isFinalReviewPage(read.observation, this.o.profile);
  }

  private skipped(action: Action, read: PageRead): StepAction {
    return {
      action,
      element: hasRef(action) ? read.control(action.ref)?.label : undefined,
      verdict: { verdict: 'allow', rule: 'not-reached', reason: 'an earlier action in the turn did not complete' },
      outcome: { status: 'skipped', ms: 0 },
    };
  }

  private async screenshot(): Promise<Uint8Array | null> {
    try {
      const page = this.o.page;
      return await page.screenshot({ type: 'png', mask: [page.locator('input[type=password]')], timeout: 10_000 });
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

class RunEndWithAction extends Error {
  constructor(
    readonly stepAction: StepAction,
    readonly end: RunEnd,
  ) {
    super(end.message);
  }
}

/** `click button "Submit application"` for logs and approval cards. */
export function describe(action: Action, element: string | undefined): string {
  switch (action.type) {
    case 'click':
      return `click ${element ?? action.ref}`;
    case 'fill':
      return `fill ${element ?? action.ref} from case field ${action.field}`;
    case 'select':
      return `select in ${element ?? action.ref} from case field ${action.field}`;
    case 'check':
      return `${action.checked ? 'tick' : 'untick'} ${element ?? action.ref}`;
    case 'press':
      return `press ${action.key}`;
    case 'goto':
      return `go to ${action.url}`;
    case 'ask':
      return `ask the clerk (${action.kind}): ${action.question}`;
    case 'done':
      return `done: ${action.proof}`;
    case 'fail':
      return `fail: ${action.reason}`;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}
