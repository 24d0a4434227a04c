import { SECRET_INPUT_KINDS, type InputKind } from '../../shared/clerk';
import type { RunStatus } from '../../shared/run';
import type { CaseView } from '../decide/planner';
import type { GuardContext } from '../guard/guard-context';
import type { PageRead } from '../observe/page-read';
import { errorText } from '../../base/error-text';
import { ProgressTracker } from './progress-tracker';
import type { RunLoopOptions } from './run-options';
import { newRunState, type RunState } from './run-state';
import { SecretList } from './secrets';

/** Guard events the model is told of (it may have caused them, and they change what the page can do). */
const BROWSER_REFUSALS = new Set(['download_blocked', 'navigation_blocked', 'popup_closed', 'permission_denied']);
/** Inputs a screenshot never shows: passwords and one-time codes. */
const MASKED_INPUTS = 'input[type=password], input[autocomplete="one-time-code"]';

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
  /** Aborted when the run's time limit passes: every wait the run makes (model, store, page) ends by it. */
  readonly deadline = new AbortController();
  /** What the run is doing now, named when the time limit stops it. */
  doing = 'starting';
  /** This desk lost its hold on the run (another desk took it over): it acts and writes no more. */
  lostHold = false;

  constructor(readonly o: RunLoopOptions) {
    this.now = o.now ?? (() => new Date());
    this.state = newRunState(o.firstStep ?? 0, o.clerkValues ?? {});
    this.progress = new ProgressTracker(o.recorder, o.caseFile, this.now, () => this.plainClerkValues());
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

  /** A question for the clerk; `null` when the clerk declines. A secret answer is registered as one. */
  async askClerk(kind: InputKind, question: string, field: string | null): Promise<string | null> {
    await this.setStatus('awaiting_input', `Waiting for you: ${kind === 'otp' ? 'type the one-time code' : question}`);
    const answer = await this.o.inputs.ask({ runId: this.o.runId, step: this.state.step, kind, question, field });
    if (answer !== null && SECRET_INPUT_KINDS.includes(kind)) this.addSecret(answer);
    await this.setStatus('running');
    return answer;
  }

  /** A picture of the page with passwords and codes masked; null (and a note) when none can be taken. */
  async screenshot(timeout = 10_000): Promise<Uint8Array | null> {
    try {
      const page = this.o.page;
      const png = await page.screenshot({ type: 'png', mask: [page.locator(MASKED_INPUTS)], timeout });
      this.state.lastScreenshot = png;
      return png;
    } catch (err) {
      this.note('screenshot_failed', errorText(err));
      return null;
    }
  }
}
