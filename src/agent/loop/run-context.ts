import { SECRET_INPUT_KINDS, type InputKind } from '../../shared/clerk';
import type { RunStatus } from '../../shared/run';
import type { CaseView } from '../decide/planner';
import type { GuardContext } from '../guard/guard-context';
import type { PageRead } from '../observe/page-read';
import { maskedScreenshot } from '../observe/page-picture';
import { errorText } from '../../base/error-text';
import { clerkWaitNoticeMs, DEFAULT_LIMITS, type RunLimits } from './limits';
import { ProgressTracker } from './progress-tracker';
import type { RunLoopOptions } from './run-options';
import { newRunState, type RunState } from './run-state';
import { SecretList } from './secrets';

/** Guard events the model is told of (it may have caused them, and they change what the page can do). */
const BROWSER_REFUSALS = new Set(['download_blocked', 'navigation_blocked', 'popup_closed', 'permission_denied']);
/** How often a wait for the clerk looks at the clock (the run's own, injectable) for its notice and expiry. */
const WAIT_TICK_MS = 500;

/** How a wait for the clerk ended: answered, or run out (nothing was answered on the clerk's behalf). */
type ClerkWait<T> = { kind: 'answered'; answer: T } | { kind: 'expired'; reason: string };

/**
 * One run's ports and state, as the portal handlers, the action pipeline and the gate's judge see
 * them: the options the composition root gave, the run state, the secrets, the progress record,
 * and the few things every part does the same way (a note in the step log, code's own acting
 * through the commit gate, a question to the clerk, a picture of the page). It decides nothing
 * and never ends a run: that is the driver's.
 */
export class RunContext {
  readonly state: RunState;
  readonly secrets = new SecretList();
  readonly progress: ProgressTracker;
  readonly now: () => Date;
  /** Waits on purpose go through here (RunOptions.wait), never a bare timer. */
  readonly wait: (ms: number) => Promise<void>;
  readonly limits: RunLimits;
  /** Aborted when the run's time limit passes: every wait the run makes (model, store, page) ends by it. */
  readonly deadline = new AbortController();
  /** What the run is doing now, named when the time limit stops it. */
  doing = 'starting';
  /** This desk lost its hold on the run (another desk took it over): it acts and writes no more. */
  lostHold = false;
  /** When each wait for the clerk under way began (run's clock): working time stops meanwhile. */
  private readonly clerkSince = new Map<symbol, number>();

  constructor(readonly o: RunLoopOptions) {
    this.now = o.now ?? (() => new Date());
    this.wait = o.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.state = newRunState(o.firstStep ?? 0, o.clerkValues ?? {});
    this.progress = new ProgressTracker(o.recorder, o.caseFile, o.runId, this.now, () => this.plainClerkValues());
  }

  /** Something code saw outside the model's actions (a blocked pop-up, a dismissed dialog...). */
  note(type: string, message: string): void {
    const redacted = this.secrets.redact(message);
    this.state.pendingEvents.push({ type, message: redacted, at: this.now().toISOString() });
    this.o.listener?.log?.(`  ! ${type}: ${redacted}`);
    // What the browser refused on the page's or the model's behalf is told to the model next turn.
    if (BROWSER_REFUSALS.has(type)) this.tellModel(`The browser ${redacted.charAt(0).toLowerCase()}${redacted.slice(1)}`);
  }

  /**
   * Whether this desk still holds the run (fencing, the store's lease epoch), asked before every
   * action. The moment it does not (or the store cannot say), the run's page is closed, so nothing
   * more is sent to the portal from here, and the run writes nothing more.
   */
  async stillHolds(): Promise<boolean> {
    if (this.lostHold) return false;
    const holds = this.o.recorder.holds;
    if (!holds) return true;
    let held: boolean;
    try {
      held = await holds.call(this.o.recorder, this.o.runId);
    } catch {
      held = false;
    }
    if (held) return true;
    this.lostHold = true;
    this.o.listener?.log?.(`  ! lease_lost: another desk holds run ${this.o.runId} now; this desk stops acting and closes its page`);
    await this.o.page.close().catch(() => undefined);
    return false;
  }

  /** A line for the model at its next turn. */
  tellModel(line: string): void {
    this.state.notes.push(line);
  }

  /** Registers a secret that must never be written down (a vault password). */
  addSecret(secret: string): void {
    this.secrets.add(secret);
    this.o.recorder.registerSecret(secret, this.o.runId);
  }

  /** The clerk's answers that are not secrets (missing values): these join the case. */
  plainClerkValues(): Record<string, string> {
    const secrets = this.secrets.all();
    return Object.fromEntries(Object.entries(this.state.clerkValues).filter(([, v]) => !secrets.includes(v)));
  }

  caseView(): CaseView {
    const c = this.o.caseFile;
    return { caseId: c.caseId, portal: c.portal, task: c.task, fields: { ...c.fields }, aliases: c.aliases, declarations: c.declarations, documents: Object.keys(c.documents ?? {}) };
  }

  guardContext(read: PageRead): GuardContext {
    return {
      profile: this.o.profile,
      caseFile: this.o.caseFile,
      clerkValues: this.state.clerkValues,
      observation: read.observation,
      control: (ref) => read.control(ref),
    };
  }

  /**
   * Code's own handling (sign-in, a code, a banner, a checkpoint) acting on the page: what it
   * sends goes through the commit gate like anything else, attributed to code, never pre-approved.
   * A request of it the clerk denies ends the run (the driver reads the denial before the next read).
   */
  asCode<T>(description: string, act: () => Promise<T>): Promise<T> {
    return this.o.gate.during({ step: this.state.step, description: `code: ${description}`, approved: false }, act);
  }

  /** Code's own navigation (through the gate as code's); a slow portal gets a second try before the run stops. */
  async goto(url: string): Promise<void> {
    await this.asCode(`open ${url}`, async () => {
      try {
        await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      } catch (err) {
        this.note('navigation', `${url} did not load (${errorText(err)}); trying again`);
        try {
          await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
        } catch (again) {
          // The browser's error page is in the tab: the next read sees the portal not answering (handlers/portal-outage.ts).
          if (!this.o.page.url().startsWith('chrome-error:')) throw again;
          this.note('navigation', `${url} did not load again (${errorText(again)})`);
        }
      }
    });
  }

  async setStatus(status: RunStatus, reason?: string): Promise<void> {
    await this.o.recorder.updateRun(this.o.runId, { status, reason });
    this.o.listener?.status?.(status, reason);
  }

  /** A question for the clerk; `null` when the clerk declines (or the wait ran out). A secret answer is registered as one. */
  async askClerk(kind: InputKind, question: string, field: string | null): Promise<string | null> {
    await this.setStatus('awaiting_input', `Waiting for you: ${kind === 'otp' ? 'type the one-time code' : question}`);
    const waited = await this.waitForClerk(`the question “${question}”`, () => this.o.inputs.ask({ runId: this.o.runId, step: this.state.step, kind, question, field }));
    const answer = waited.kind === 'answered' ? waited.answer : null;
    if (answer !== null && SECRET_INPUT_KINDS.includes(kind)) this.addSecret(answer);
    await this.setStatus('running');
    return answer;
  }

  /** When a wait for the clerk that starts now runs out (ISO time, on the run's clock): the card shows it as a countdown. */
  waitExpiry(): string {
    return new Date(this.now().getTime() + this.limits.clerkWaitMs).toISOString();
  }

  /**
   * Waits for the clerk's answer to `ask` (an approval card, a question). The time is the clerk's,
   * not the run's working time; the wait runs out at `expiresAt` (from `waitExpiry()`), with a
   * notice in the step log and on the terminal before it does. Run out, it answers `expired` and
   * the run ends `interrupted` (resumable): nothing is decided on the clerk's behalf.
   */
  async waitForClerk<T>(what: string, ask: () => Promise<T>, expiresAt = this.waitExpiry()): Promise<ClerkWait<T>> {
    const deadline = Date.parse(expiresAt);
    const noticeAt = deadline - clerkWaitNoticeMs(this.limits.clerkWaitMs);
    let timer: ReturnType<typeof setInterval> | undefined;
    let noticed = false;
    const expired = new Promise<ClerkWait<T>>((resolve) => {
      timer = setInterval(() => {
        const now = this.now().getTime();
        if (now >= deadline) {
          resolve({ kind: 'expired', reason: `No answer from the clerk to ${what} within ${minutes(this.limits.clerkWaitMs)}: nothing was sent or answered on their behalf; resume the run to be asked again` });
        } else if (now >= noticeAt && !noticed) {
          noticed = true;
          this.note('clerk_wait_expiring', `${minutes(deadline - now)} left to answer ${what}; then the run stops, resumable`);
        }
      }, WAIT_TICK_MS);
    });
    try {
      const waited = await this.clerkTime(() => Promise.race([ask().then((answer): ClerkWait<T> => ({ kind: 'answered', answer })), expired]));
      if (waited.kind === 'expired') {
        this.state.waitExpired ??= waited.reason;
        this.note('clerk_wait_expired', waited.reason);
      }
      return waited;
    } finally {
      clearInterval(timer);
    }
  }

  /** Time the clerk has (an answer, a take-over): it is left out of the run's working time. */
  async clerkTime<T>(wait: () => Promise<T>): Promise<T> {
    const from = this.now().getTime();
    const key = Symbol('clerk wait');
    this.clerkSince.set(key, from);
    try {
      return await wait();
    } finally {
      this.clerkSince.delete(key);
      this.state.clerkWaitMs += Math.max(0, this.now().getTime() - from);
    }
  }

  /** The agent's working time in this life of the run since `started` (ms on the run's clock): the clerk's waits, past and under way, left out. */
  workingMs(started: number): number {
    const now = this.now().getTime();
    const waiting = this.clerkSince.size > 0 ? now - Math.min(...this.clerkSince.values()) : 0;
    return now - started - this.state.clerkWaitMs - waiting;
  }

  /** A picture of the page with passwords and codes masked; null (and a note) when none can be taken. */
  async screenshot(timeout = 10_000): Promise<Uint8Array | null> {
    try {
      const png = await maskedScreenshot(this.o.page, { timeout });
      this.state.lastScreenshot = png;
      return png;
    } catch (err) {
      this.note('screenshot_failed', errorText(err));
      return null;
    }
  }
}

/** "30 min", "45 s": a wait's length as the clerk reads it. */
function minutes(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}
