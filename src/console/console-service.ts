import { userInfo } from 'node:os';
import type { Browser } from 'playwright-core';
import type { z } from 'zod';
import { profileFolders } from '../agent/case/portal-profiles';
import { describeZodError } from '../agent/case/zod-message';
import type { RunLimits } from '../agent/loop/limits';
import { errorText } from '../base/error-text';
import { ConsoleMethods, type ConsoleEvent, type ConsoleMethod, type ConsoleResult } from '../shared/console-api';
import type { PortalProfile } from '../shared/portal-profile';
import type { DemoPortals } from '../service/demo-portals';
import { officeDatabaseUrl, openConfiguredStore, PgStore, type Store } from '../store';
import type { KeySource } from '../vault';
import { ApprovalDetails } from './approval-detail';
import { listCaseFiles } from './case-folder';
import { CaseQueues } from './case-queue';
import { ClerkDesk } from './clerk-desk';
import { ConsoleFeed } from './console-feed';
import { ConsoleRequestError } from './console-request-error';
import { ConsoleResources } from './console-resources';
import { LiveRuns } from './live-runs';
import { NO_OFFICE, OfficeDesk, OfficeDeskError } from './office-desk';
import { PortalSettings } from './portal-settings';
import { RunLauncher } from './run-launcher';
import { RunReplay } from './run-replay';
import { ClerkHands } from './take-over-input';

export interface ConsoleServiceOptions {
  dbPath: string;
  casesDir: string;
  vaultDir?: string;
  env?: Record<string, string | undefined>;
  /** The browser runs use. Default: the machine's Chromium (`launchChromium`), one per process, with the lab's host mapping for lab portals. */
  browser?: () => Promise<Browser>;
  // ---- Extensions beyond the agreed options (all optional) ----
  /**
   * The demo portals (the portal lab) to run their profiles on: the CLI's console and the demo shell
   * pass one, tests pass theirs to configure variants and read codes; whoever passes it stops it.
   * None (the production shell): every profile is a real portal and no demo login is offered.
   */
  demo?: DemoPortals;
  /** The vault's key (the Electron shell passes its SealedKeyFileSource). Default: key file or OS keyring, as the CLI chooses. */
  keySource?: KeySource;
  /** Extra folders searched for portal profiles before the built-in ones. */
  portalFolders?: string[];
  /** Name written into approval records as the deciding clerk. Default: the OS user. */
  clerkName?: string;
  /** Per-run step cap and time limit (the engine's defaults otherwise). */
  limits?: Partial<RunLimits>;
  /** Every run's waits on purpose (the outage handler's pause before it tries the portal again; RunRequest.wait). Default: a timer. A test passes one that does not sleep. */
  wait?: (ms: number) => Promise<void>;
  /** Where "Export report" writes reports (0600). Default: `reports/` beside the store. */
  reportsDir?: string;
  /**
   * Runs each run's start (from before its browser context opens until its first page exists)
   * inside the shell's own bookkeeping: the Electron shell offers the run's client and portal to
   * the context about to open (RunBindings.starting). Every start goes through it: the clerk's,
   * a queue's, the office queue's.
   */
  startGate?: <T>(run: { runId: string; clientId: string; portalId: string; profile: PortalProfile }, start: () => Promise<T>) => Promise<T>;
}

type Params<M extends ConsoleMethod> = z.output<(typeof ConsoleMethods)[M]['params']>;
type Handlers = { [M in ConsoleMethod]: (params: Params<M>) => Promise<ConsoleResult<M>> };

/**
 * The console's composition root below the UI. Electron IPC and the browser console's WebSocket
 * both call `handle` and `subscribe`; each request goes to the part that owns its concern, all
 * sharing one store, one clerk desk and one feed:
 * - LiveRuns (live-runs.ts): the runs alive in this console, one per client and portal, and their views;
 * - RunLauncher (run-launcher.ts): how a run starts (the clerk's, a queue's, an office case) and is wired in;
 * - CaseQueues (case-queue.ts): the day's queues;
 * - ClerkDesk, ApprovalDetails, ClerkHands: what runs wait for from the clerk, and the clerk's answers;
 * - RunReplay (run-replay.ts): replay and export; PortalSettings: the settings screen; OfficeDesk: the office.
 */
export class ConsoleService {
  private readonly feed: ConsoleFeed;
  private readonly desk: ClerkDesk;
  private readonly resources: ConsoleResources;
  private readonly runs: LiveRuns;
  private readonly approvals: ApprovalDetails;
  private readonly hands: ClerkHands;
  private readonly launcher: RunLauncher;
  private readonly queues: CaseQueues;
  private readonly replay: RunReplay;
  private readonly settings: PortalSettings;
  private readonly office: OfficeDesk | undefined;
  private readonly clerkName: string;
  private readonly portalFolders: string[];
  private closing = false;
  private readonly handlers: Handlers;

  private constructor(
    private readonly options: ConsoleServiceOptions,
    private readonly store: Store,
  ) {
    const env = options.env ?? process.env;
    const demo = options.demo;
    const closing = () => this.closing;
    this.portalFolders = profileFolders(options.portalFolders ?? []);
    this.clerkName = options.clerkName ?? clerkNameFrom(env);
    this.feed = new ConsoleFeed(() => this.runs.ids());
    this.desk = new ClerkDesk(this.clerkName, (runId) => void this.runs.emitRun(runId));
    this.resources = new ConsoleResources({ env, vaultDir: options.vaultDir, keySource: options.keySource, browser: options.browser, demo });
    this.runs = new LiveRuns({ store, desk: this.desk, feed: this.feed, closing, shown: (runId) => this.queues.showRun(runId) });
    this.approvals = new ApprovalDetails({ desk: this.desk, store, live: (runId) => this.runs.get(runId), read: (runId) => this.runs.emitRun(runId) });
    this.hands = new ClerkHands(this.desk, store, (runId) => this.runs.get(runId));
    this.launcher = new RunLauncher({
      service: options,
      env,
      portalFolders: this.portalFolders,
      demo,
      store,
      desk: this.desk,
      approvals: () => this.approvals.gate(),
      runs: this.runs,
      feed: this.feed,
      resources: this.resources,
      closing,
    });
    this.queues = new CaseQueues({ casesDir: options.casesDir, portalFolders: this.portalFolders, env, desk: this.desk, runs: this.runs, launcher: this.launcher, show: (queue) => this.feed.emit({ type: 'queue', queue }) });
    this.replay = new RunReplay({ store, requireRun: (runId) => this.runs.requireRun(runId), resources: this.resources, demo, dbPath: options.dbPath, reportsDir: options.reportsDir });
    this.settings = new PortalSettings({ portalFolders: this.portalFolders, demo, env, vault: () => this.resources.openedVault() });
    this.handlers = this.makeHandlers();
    const url = officeDatabaseUrl(env as NodeJS.ProcessEnv);
    if (url && store instanceof PgStore) {
      const office: OfficeDesk = new OfficeDesk({
        url,
        store,
        execute: (caseFile, resume, hooks) => this.launcher.officeCase(office, caseFile, resume, hooks),
        changed: (view) => this.feed.emit({ type: 'office', office: view }),
        env: env as NodeJS.ProcessEnv,
      });
      this.office = office;
      this.office.start();
    }
  }

  /** Opens the console on this desk's store, or on the office's (PORTAL_DESK_DATABASE_URL): then it can join the office queue. */
  static async open(options: ConsoleServiceOptions): Promise<ConsoleService> {
    const store = await openConfiguredStore({ dbPath: options.dbPath, env: (options.env ?? process.env) as NodeJS.ProcessEnv });
    // Runs left live by a console or CLI that died become `interrupted` (resumable), never "running" forever.
    await store.markInterrupted();
    return new ConsoleService(options, store);
  }

  /** Validates params with ConsoleMethods[method].params, runs it, validates the result. Unknown method → throws. */
  async handle(method: string, params: unknown): Promise<unknown> {
    if (!Object.hasOwn(ConsoleMethods, method)) throw new ConsoleRequestError(`Unknown method "${method}"`);
    const m = method as ConsoleMethod;
    const spec = ConsoleMethods[m];
    const parsed = spec.params.safeParse(params ?? {});
    if (!parsed.success) throw new ConsoleRequestError(`Bad parameters for ${m}: ${describeZodError(parsed.error)}`);
    if (this.closing) throw new ConsoleRequestError('The console is shutting down');
    const handler = this.handlers[m] as (p: unknown) => Promise<unknown>;
    const result = await handler(parsed.data);
    return spec.result.parse(result);
  }

  /**
   * The desktop shell's portal view in the clerk's hands: whether they hold a run's portal now (a
   * take-over), and their presses there, read for what they aim at as the live view's
   * forwarded input is (a commit request is theirs only through one).
   */
  clerkHands(): { holds(runId: string): boolean; press(runId: string, at: { x: number; y: number } | 'focus'): void } {
    return { holds: (runId) => this.hands.holds(runId), press: (runId, at) => this.hands.press(runId, at) };
  }

  subscribe(listener: (event: ConsoleEvent) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /**
   * Closes the console (Ctrl+C, the window closing). Nothing is approved, denied or declined on
   * the clerk's behalf: each live run is recorded `interrupted` with what it waited for, its
   * loop's further writes are dropped, and `resumeRun` (or `portal-desk resume`) continues it.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.office?.stopTaking();
    await this.runs.interruptAll();
    this.desk.abandonAll();
    await this.runs.stopScreencasts();
    // A run mid-action ends when its browser goes; whatever it writes as it ends is dropped.
    await this.resources.closeBrowsers();
    // Office runs parked on a row wake and end; the desk's worker hands their cases back to the queue.
    await this.office?.close();
    await this.runs.ended(5_000);
    this.feed.close();
    await this.store.close();
  }

  // ---- Methods: each one the part's that owns it -----------------------------------------------

  private makeHandlers(): Handlers {
    const { runs, desk, replay, settings, hands } = this;
    return {
      listCases: async () => listCaseFiles(this.options.casesDir, this.portalFolders),
      startRun: (p) => this.launcher.start(p),
      listRuns: (p) => runs.views(p.status),
      getRun: async (p) => runs.viewOf(await runs.requireRun(p.runId)),
      listSteps: (p) => replay.steps(p.runId),
      getScreenshot: (p) => replay.screenshot(p.hash),
      decide: async (p) => ({ accepted: desk.decide(p.runId, p.decision, p.note) }),
      answer: async (p) => ({ accepted: desk.answer(p.runId, p.value) }),
      verifyRun: (p) => replay.verify(p.runId),
      exportRun: (p) => replay.export(p.runId),
      listPortals: async () => settings.portals(),
      listCredentials: () => settings.credentials(),
      setCredential: async (p) => {
        await settings.saveCredential(p);
        return { saved: true };
      },
      removeCredential: async (p) => ({ removed: await settings.removeCredential(p.clientId, p.portal) }),
      modelStatus: async () => settings.model(),
      takeOver: async (p) => ({ accepted: await hands.take(p.runId) }),
      handBack: async (p) => ({ accepted: desk.handBack(p.runId, p.decision, p.note) }),
      takeOverInput: async (p) => ({ accepted: await hands.play(p.runId, p.events) }),
      resumeRun: (p) => this.launcher.resume(p.runId),
      resendCode: async (p) => ({ accepted: desk.resendCode(p.runId) }),
      approvalPicture: async (p) => {
        const png = this.approvals.picture(p.runId);
        return { pngBase64: png ? png.toString('base64') : null };
      },
      startQueue: (p) => this.queues.start(p),
      listQueues: async () => this.queues.list(),
      officeStatus: async () => this.office?.view() ?? NO_OFFICE,
      joinOffice: async (p) => {
        const office = this.requireOffice();
        try {
          return await office.join(p.join, p.slots, p.planner);
        } catch (err) {
          throw new ConsoleRequestError(`Could not join the office queue: ${errorText(err).split('\n')[0]}`);
        }
      },
      answerOfficeWait: async (p) => {
        const office = this.requireOffice();
        try {
          const answer = { ...(p.decision ? { decision: p.decision } : {}), ...(p.value !== undefined ? { value: p.value } : {}), ...(p.note ? { note: p.note } : {}) };
          return { accepted: await office.answer(p.id, answer, this.clerkName) };
        } catch (err) {
          if (err instanceof OfficeDeskError) throw new ConsoleRequestError(err.message);
          throw err;
        }
      },
    };
  }

  private requireOffice(): OfficeDesk {
    if (!this.office) throw new ConsoleRequestError('No office database is configured: start the console with PORTAL_DESK_DATABASE_URL=postgres://… to join the office queue');
    return this.office;
  }
}

function clerkNameFrom(env: Record<string, string | undefined>): string {
  const name = env['USER'] || env['USERNAME'] || safeUserName();
  return name ? `clerk:${name}` : 'clerk';
}

function safeUserName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
