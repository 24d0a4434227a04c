import { userInfo } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import type { z } from 'zod';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile, profileFolders } from '../agent/case/portal-profiles';
import { describeZodError } from '../agent/case/zod-message';
import { AnthropicConfigError } from '../agent/decide/anthropic';
import type { RunLimits } from '../agent/loop/limits';
import { CaseFile } from '../shared/case-file';
import type { ApprovalGate, InputSource } from '../shared/clerk';
import type { PortalProfile } from '../shared/portal-profile';
import {
  ConsoleMethods,
  type ConsoleEvent,
  type ConsoleMethod,
  type ConsoleResult,
  type OfficeView,
  type QueueView,
  type RunPhase,
  type RunView,
} from '../shared/console-api';
import { FINAL_STATUSES, ZERO_USAGE, type RunRecord } from '../shared/run';
import { newRunId } from '../agent/loop/run-id';
import { runBatch, type BatchEntry, type BatchRun } from '../service/batch';
import { readdirSync } from 'node:fs';
import type { CaseExecutor, CaseHooks } from '../service/office-queue';
import { bindDemo, type DemoPortals } from '../service/demo-portals';
import { createPlanner } from '../service/planners';
import type { RunServices } from '../service/run-service';
import { routesFor } from '../service/learned-routes';
import { officeDatabaseUrl, openConfiguredStore, PgStore, type Store } from '../store';
import { CredentialChain, type KeySource } from '../vault';
import { ApprovalDetails, pendingReading, type AskedApproval } from './approval-detail';
import { displayNameOf, listCaseFiles, loadCaseFromFolder, resolveInFolder } from './case-folder';
import { CaseQueue, type QueueLookups } from './case-queue';
import { ClientSlots } from './client-slots';
import { OfficeDesk, OfficeDeskError } from './office-desk';
import { ClerkDesk } from './clerk-desk';
import { ClerkHands } from './take-over-input';
import { PortalSettings } from './portal-settings';
import { RunReplay } from './run-replay';
import { startScreencast, type Screencast } from './screencast';
import { errorText } from '../base/error-text';
import { ConsoleFeed } from './console-feed';
import { ConsoleRequestError } from './console-request-error';
import { ConsoleResources } from './console-resources';

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

interface LiveRun {
  runId: string;
  /** Its client and portal (ClientSlots), held until the run is over. */
  slot: string;
  screencast?: Screencast;
  finished: Promise<void>;
  /** Resolves `finished`. */
  settle: () => void;
  /** The run as the console shows it until the store has it (its browser is starting). */
  placeholder?: RunRecord;
  /** Ends the shell's start gate (the run's page exists, or it could not start). */
  endStart?: () => void;
  /** The run's portal page (take-over input, approval pictures). */
  page?: Page;
  caseFile: CaseFile;
  profile: PortalProfile;
  phase: RunPhase;
  /** The console closed: nothing this run's loop writes from now on reaches the store (it stays `interrupted`). */
  frozen: boolean;
  /** What the pending approval will do, read from the page when it was asked. */
  approval?: AskedApproval;
}

/** The store's writes a run makes: dropped once the console closes, so a closing console never ends a run on the clerk's behalf. */
const RUN_WRITES = new Set<string | symbol>(['createRun', 'recordStep', 'updateRun', 'saveProgress', 'recordModelPayload']);

/**
 * The console's composition root below the UI: case files, runs (concurrent, each parked on the
 * clerk desk while it waits), the live screencast, replay queries, export, and settings. Electron
 * IPC and the browser console's WebSocket both call `handle` and `subscribe`.
 */
export class ConsoleService {
  private readonly live = new Map<string, LiveRun>();
  private readonly slots = new ClientSlots();
  private readonly feed = new ConsoleFeed(() => this.live.keys());
  /** The day's queues started in this console, oldest first. */
  private readonly queues = new Map<string, CaseQueue>();
  /** The latest record of each run the console told about (a queue's entries read their state from it). */
  private readonly records = new Map<string, RunRecord>();
  /** Runs that could not start before the store had them: shown as failed for this session. */
  private readonly unstarted = new Map<string, RunRecord>();
  private readonly office: OfficeDesk | undefined;
  private officePlanner: 'rules' | 'anthropic' = 'rules';
  private readonly clerkName: string;
  private readonly desk: ClerkDesk;
  private readonly approvals: ApprovalDetails;
  private readonly hands: ClerkHands;
  private readonly demo: DemoPortals | undefined;
  private readonly env: Record<string, string | undefined>;
  private readonly portalFolders: string[];
  private readonly resources: ConsoleResources;
  private readonly replay: RunReplay;
  private readonly settings: PortalSettings;
  private closing = false;
  private readonly handlers: Handlers;

  private constructor(
    private readonly options: ConsoleServiceOptions,
    private readonly store: Store,
  ) {
    this.env = options.env ?? process.env;
    this.demo = options.demo;
    this.portalFolders = profileFolders(options.portalFolders ?? []);
    this.clerkName = options.clerkName ?? clerkNameFrom(this.env);
    this.resources = new ConsoleResources({ env: this.env, vaultDir: options.vaultDir, keySource: options.keySource, browser: options.browser, demo: this.demo });
    this.replay = new RunReplay({ store, requireRun: (runId) => this.requireRun(runId), resources: this.resources, demo: this.demo, dbPath: options.dbPath, reportsDir: options.reportsDir });
    this.settings = new PortalSettings({ portalFolders: this.portalFolders, demo: this.demo, env: this.env, vault: () => this.resources.openedVault() });
    this.desk = new ClerkDesk(this.clerkName, (runId) => void this.emitRun(runId));
    this.approvals = new ApprovalDetails({ desk: this.desk, store, live: (runId) => this.live.get(runId), read: (runId) => this.emitRun(runId) });
    this.hands = new ClerkHands(this.desk, store, (runId) => this.live.get(runId));
    this.handlers = this.makeHandlers();
    const url = officeDatabaseUrl(this.env as NodeJS.ProcessEnv);
    if (url && store instanceof PgStore) {
      this.office = new OfficeDesk({
        url,
        store,
        execute: (caseFile, resume, hooks) => this.runOfficeCase(caseFile, resume, hooks),
        changed: (office) => this.feed.emit({ type: 'office', office }),
        env: this.env as NodeJS.ProcessEnv,
      });
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
    // Freeze first, then unwind: the parked questions fail, and what the loops write as they end is dropped.
    const live = [...this.live.values()];
    for (const run of live) run.frozen = true;
    for (const run of live) {
      const view = await this.store.getRun(run.runId).catch(() => null);
      if (!view || FINAL_STATUSES.includes(view.status)) continue;
      const what = view.status === 'awaiting_approval' ? 'your approval' : view.status === 'awaiting_input' ? 'you' : null;
      const reason = what
        ? `Interrupted: the console closed while the run waited for ${what} (step ${view.stepCount}); nothing was decided for you. Resume it to go on`
        : `Interrupted: the console closed mid-run after step ${view.stepCount}; resume it to go on`;
      await this.store.updateRun(run.runId, { status: 'interrupted', reason }).catch(() => undefined);
    }
    this.desk.abandonAll();
    for (const run of this.live.values()) await run.screencast?.stop();
    // A run mid-action ends when its browser goes; whatever it writes as it ends is dropped.
    await this.resources.closeBrowsers();
    // Office runs parked on a row wake and end; the desk's worker hands their cases back to the queue.
    await this.office?.close();
    await settleWithin([...this.live.values()].map((r) => r.finished), 5_000);
    this.feed.close();
    await this.store.close();
  }

  // ---- Methods -------------------------------------------------------------------------------

  private makeHandlers(): Handlers {
    return {
      listCases: async () => listCaseFiles(this.options.casesDir, this.portalFolders),
      startRun: (p) => this.startRun(p),
      listRuns: async (p) => {
        const stored = await this.store.listRuns({ status: p.status, limit: 200 });
        const known = new Set(stored.map((r) => r.id));
        const starting = [...[...this.live.values()].map((r) => r.placeholder), ...this.unstarted.values()].filter(
          (r): r is RunRecord => !!r && !known.has(r.id) && (!p.status || r.status === p.status),
        );
        return Promise.all([...starting, ...stored].map((run) => this.viewOf(run)));
      },
      getRun: async (p) => this.viewOf(await this.requireRun(p.runId)),
      listSteps: (p) => this.replay.steps(p.runId),
      getScreenshot: (p) => this.replay.screenshot(p.hash),
      decide: async (p) => ({ accepted: this.desk.decide(p.runId, p.decision, p.note) }),
      answer: async (p) => ({ accepted: this.desk.answer(p.runId, p.value) }),
      verifyRun: (p) => this.replay.verify(p.runId),
      exportRun: (p) => this.replay.export(p.runId),
      listPortals: async () => this.settings.portals(),
      listCredentials: () => this.settings.credentials(),
      setCredential: async (p) => {
        await this.settings.saveCredential(p);
        return { saved: true };
      },
      removeCredential: async (p) => ({ removed: await this.settings.removeCredential(p.clientId, p.portal) }),
      modelStatus: async () => this.settings.model(),
      takeOver: async (p) => ({ accepted: await this.hands.take(p.runId) }),
      handBack: async (p) => ({ accepted: this.desk.handBack(p.runId, p.decision, p.note) }),
      takeOverInput: async (p) => ({ accepted: await this.hands.play(p.runId, p.events) }),
      resumeRun: (p) => this.resumeRun(p.runId),
      resendCode: async (p) => ({ accepted: this.desk.resendCode(p.runId) }),
      approvalPicture: async (p) => {
        const png = this.approvals.picture(p.runId);
        return { pngBase64: png ? png.toString('base64') : null };
      },
      startQueue: (p) => this.startQueue(p),
      listQueues: async () => [...this.queues.values()].map((q) => q.view(this.lookups())),
      officeStatus: async () => this.office?.view() ?? NO_OFFICE,
      joinOffice: async (p) => {
        const office = this.requireOffice();
        this.officePlanner = p.planner;
        try {
          return await office.join(p.join, p.slots);
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

  /** Continues an interrupted run of this store under its own id: a fresh portal binding, the stored case, planner and layout. */
  private async resumeRun(runId: string): Promise<{ runId: string }> {
    const run = await this.requireRun(runId);
    if (this.live.has(runId)) throw new ConsoleRequestError(`Run ${runId} is already running in this console`);
    if (FINAL_STATUSES.includes(run.status)) throw new ConsoleRequestError(`Run ${runId} is ${run.status}; a final run is not resumed. Start the case again instead.`);
    if (run.status !== 'interrupted') throw new ConsoleRequestError(`Run ${runId} is ${run.status} in another process; only an interrupted run is resumed`);
    let caseFile: CaseFile;
    let baseProfile: PortalProfile;
    let stored: { planner?: unknown; layout?: unknown };
    try {
      stored = JSON.parse(run.caseJson) as { caseFile?: unknown; planner?: unknown; layout?: unknown };
      caseFile = CaseFile.parse((stored as { caseFile?: unknown }).caseFile);
      baseProfile = loadPortalProfile(caseFile.portal, this.portalFolders);
    } catch (err) {
      throw new ConsoleRequestError(`Run ${runId} cannot be resumed: its stored case or portal cannot be read (${errorText(err)})`);
    }
    const planner = stored.planner === 'anthropic' ? 'anthropic' : 'rules';
    // On a lab another process runs (console --lab-url) its owner sets the layout: the stored one is not asked for again.
    const layout = (stored.layout === 'original' || stored.layout === 'redesigned') && this.demo?.layouts !== false ? stored.layout : undefined;
    const live = this.claimAndRegister(caseFile, { runId, resumed: true, planner, layout });
    this.runInBackground(live, caseFile, baseProfile, { planner, layout, resume: true });
    return { runId };
  }

  private async startRun(p: Params<'startRun'>): Promise<{ runId: string }> {
    // Everything the clerk chose is checked before anything runs.
    let caseFile: CaseFile;
    let baseProfile: PortalProfile;
    try {
      caseFile = loadCaseFromFolder(this.options.casesDir, p.file);
      baseProfile = loadPortalProfile(caseFile.portal, this.portalFolders);
      createPlanner(p.planner, baseProfile, {}, this.env);
    } catch (err) {
      if (err instanceof ConfigFileError || err instanceof AnthropicConfigError) throw new ConsoleRequestError(err.message);
      throw err;
    }
    if (p.layout && !this.demo?.portalId(baseProfile)) throw new ConsoleRequestError('A layout applies to lab portals only');
    if (p.layout && !this.demo!.layouts) throw new ConsoleRequestError(RUN_BY_ANOTHER);
    // The run exists for the clerk at once (its Run screen shows the browser starting); the store has it a moment later.
    const live = this.claimAndRegister(caseFile, { runId: newRunId(), resumed: false, planner: p.planner, layout: p.layout });
    this.runInBackground(live, caseFile, baseProfile, { planner: p.planner, layout: p.layout, resume: false });
    return { runId: live.runId };
  }

  /** One run per client and portal at a time: a clerk's start is refused while another run holds the slot. */
  private claimAndRegister(caseFile: CaseFile, run: { runId: string; resumed: boolean; planner: 'rules' | 'anthropic'; layout?: string }): LiveRun {
    const slot = ClientSlots.keyOf(caseFile);
    if (!this.slots.tryClaim(slot, run.runId)) {
      const holder = this.slots.holder(slot);
      throw new ConsoleRequestError(`A run for client ${caseFile.clientId} on ${caseFile.portal} is already in progress${holder ? ` (${holder})` : ''}; let it finish first`);
    }
    return this.register(caseFile, slot, run);
  }

  /** A run the console shows from now on, its browser starting; the slot is held already. */
  private register(caseFile: CaseFile, slot: string, run: { runId: string; resumed: boolean; planner: 'rules' | 'anthropic'; layout?: string }): LiveRun {
    let settle!: () => void;
    const finished = new Promise<void>((r) => (settle = r));
    const live: LiveRun = {
      runId: run.runId,
      slot,
      finished,
      settle,
      caseFile,
      profile: undefined as unknown as PortalProfile,
      phase: 'starting_browser',
      frozen: false,
      ...(run.resumed ? {} : { placeholder: startingRecord(run.runId, caseFile, run.planner, run.layout) }),
    };
    this.slots.name(slot, run.runId);
    this.live.set(run.runId, live);
    void this.emitRun(run.runId);
    return live;
  }

  /** One case as a batch of one: the same machinery as a queue's, in the background. */
  private runInBackground(live: LiveRun, caseFile: CaseFile, baseProfile: PortalProfile, run: { planner: 'rules' | 'anthropic'; layout?: 'original' | 'redesigned'; resume: boolean }): void {
    void runBatch([{ source: caseFile.caseId, caseFile }], {
      concurrency: 1,
      services: this.sharedServices(),
      prepare: () => this.prepareRun(live, caseFile, baseProfile, run),
    });
  }

  /** What every console run shares; each run adds its own logins, store view and gates (prepareRun). */
  private sharedServices(): Omit<RunServices, 'browser'> {
    return {
      store: this.store,
      approvals: this.approvals.gate(),
      inputs: this.desk,
      takeOvers: this.desk,
      credentials: { get: async (clientId, portalId) => (await this.resources.openedVault()).vault.get(clientId, portalId) },
      env: this.env,
      demo: this.demo,
      ...routesFor(this.store),
    };
  }

  /**
   * Everything one run needs, for the batch machinery to run it: the portal bound (a lab portal to
   * the lab), the browser, the run's own wiring into the console (live view, phases, steps, the
   * store frozen when the console closes) and what happens when it is over (release). A run that
   * cannot start is shown failed with the reason.
   */
  private async prepareRun(
    live: LiveRun,
    caseFile: CaseFile,
    baseProfile: PortalProfile,
    run: { planner: 'rules' | 'anthropic'; layout?: 'original' | 'redesigned'; resume: boolean; gates?: { approvals: ApprovalGate; inputs: InputSource } },
  ): Promise<BatchRun> {
    const runId = live.runId;
    try {
      const { profile, lab } = await bindDemo(this.demo, baseProfile);
      if (!lab && run.layout) throw new ConsoleRequestError('A layout applies to lab portals only');
      // Only a change of layout reconfigures: configure re-arms the lab's CAPTCHA, which the clerk may just have solved.
      const variant = lab?.variant(caseFile.clientId);
      if (lab && run.layout && !variant) throw new ConsoleRequestError(RUN_BY_ANOTHER);
      if (lab && variant && run.layout && variant.layout !== run.layout) lab.configure(caseFile.clientId, { ...variant, layout: run.layout });
      live.profile = profile;
      const { vault, loginStates } = await this.resources.openedVault();
      const browser = await this.resources.browserFor(lab ? 'lab' : 'plain');
      if (this.closing) throw new ConsoleRequestError('The console is shutting down');
      live.phase = 'opening_portal';
      void this.emitRun(runId);
      const gate = this.options.startGate;
      if (gate) {
        // The shell offers this run's client and portal to the next context until the run's page exists.
        await new Promise<void>((offered) => {
          void gate({ runId, clientId: caseFile.clientId, portalId: baseProfile.id, profile }, () => {
            offered();
            return new Promise<void>((ended) => (live.endStart = ended));
          }).catch(() => undefined);
        });
      }
      return {
        browser,
        services: {
          store: this.frozenWhenClosed(live),
          credentials: new CredentialChain(lab && this.demo ? [vault, this.demo.credentials] : [vault]),
          loginStates,
          ...(run.gates ?? {}),
        },
        request: {
          profile,
          planner: run.planner,
          approveMode: 'ask',
          layout: lab ? (run.layout ?? variant?.layout) : undefined,
          limits: this.options.limits,
          ...(this.options.wait ? { wait: this.options.wait } : {}),
          ...(run.resume ? { runId } : { newRunId: runId }),
          listener: {
            step: (step) => {
              if (live.frozen) return;
              live.phase = 'reading_page';
              this.feed.emit({ type: 'step', runId, step });
              void this.emitRun(runId);
            },
            status: (_status, reason) => {
              live.phase = /^The portal is not answering/.test(reason ?? '') ? 'waiting_portal' : live.phase === 'waiting_portal' ? 'reading_page' : live.phase;
              void this.emitRun(runId);
            },
          },
          onStart: () => {
            live.endStart?.();
            void this.emitRun(runId);
          },
          onPage: async (page) => {
            live.page = page;
            this.followPhases(live, page);
            try {
              live.screencast = await startScreencast(page, (jpegBase64) => this.feed.frame(runId, jpegBase64));
            } catch {
              // No live view (the page closed at once); the step screenshots still come.
            }
          },
        },
        release: () => this.release(live),
      };
    } catch (err) {
      await this.release(live, err);
      throw err;
    }
  }

  /** The run is over (or never started): its slot, its live view and its parked questions go; an ending it could not record is recorded. */
  private async release(live: LiveRun, err?: unknown): Promise<void> {
    live.endStart?.();
    this.slots.release(live.slot);
    await live.screencast?.stop();
    this.desk.release(live.runId);
    this.live.delete(live.runId);
    this.feed.trimFrames();
    if (!live.frozen && !this.closing) {
      const run = await this.store.getRun(live.runId).catch(() => null);
      if (!run && live.placeholder) {
        this.unstarted.set(live.runId, { ...live.placeholder, status: 'failed', reason: `The run could not start: ${errorText(err ?? 'it stopped before its browser was ready')}`, endedAt: new Date().toISOString() });
      } else if (run && !FINAL_STATUSES.includes(run.status) && run.status !== 'interrupted') {
        // It broke before it could say how (the browser went away before its first page).
        await this.store.updateRun(run.id, { status: 'failed', reason: `The run could not start: ${errorText(err ?? 'it stopped before its first page')}`, endedAt: new Date().toISOString() }).catch(() => undefined);
      }
      await this.emitRun(live.runId);
    }
    live.settle();
  }

  // ---- The day's queue and the office ----------------------------------------------------------

  /** Runs case files (or a folder's) as a queue through the batch machinery: at most `concurrency` at once, one per client and portal. */
  private async startQueue(p: Params<'startQueue'>): Promise<QueueView> {
    const entries: BatchEntry[] = p.folder !== undefined ? this.folderEntries(p.folder) : p.files!.map((file) => this.fileEntry(file));
    if (entries.length === 0) throw new ConsoleRequestError(`No case files in "${p.folder ?? ''}"`);
    const profiles = new Map<CaseFile, PortalProfile>();
    const checked = entries.map((entry): BatchEntry => {
      if ('problem' in entry) return entry;
      try {
        const profile = loadPortalProfile(entry.caseFile.portal, this.portalFolders);
        profiles.set(entry.caseFile, profile);
        return entry;
      } catch (err) {
        if (err instanceof ConfigFileError) return { source: entry.source, problem: `portal "${entry.caseFile.portal}": ${err.problem}` };
        throw err;
      }
    });
    const first = [...profiles.values()][0];
    try {
      if (first) createPlanner(p.planner, first, {}, this.env);
    } catch (err) {
      if (err instanceof AnthropicConfigError) throw new ConsoleRequestError(err.message);
      throw err;
    }
    const id = `queue-${this.queues.size + 1}-${Date.now().toString(36)}`;
    const label = p.folder !== undefined ? `folder ${p.folder || '(all)'}` : `${checked.length} case file${checked.length === 1 ? '' : 's'}`;
    const queue = new CaseQueue(id, label, p.concurrency, p.planner, checked);
    this.queues.set(id, queue);
    const sources = new Map<CaseFile, string>(checked.flatMap((e) => ('problem' in e ? [] : [[e.caseFile, e.source] as const])));
    void runBatch(checked, {
      concurrency: p.concurrency,
      services: this.sharedServices(),
      prepare: async (caseFile) => {
        const slot = ClientSlots.keyOf(caseFile);
        this.emitQueue(queue);
        // A run of this client and portal started elsewhere in this console goes first.
        await this.slots.claim(slot);
        if (this.closing) {
          this.slots.release(slot);
          throw new ConsoleRequestError('The console closed before this case started');
        }
        const live = this.register(caseFile, slot, { runId: newRunId(), resumed: false, planner: p.planner });
        queue.started(sources.get(caseFile) ?? '', live.runId);
        this.emitQueue(queue);
        return this.prepareRun(live, caseFile, profiles.get(caseFile)!, { planner: p.planner, resume: false });
      },
      listener: {
        finished: (outcome) => {
          queue.finished(outcome);
          this.emitQueue(queue);
        },
      },
      // A client busy with a run started elsewhere in this console waits without taking one of the queue's places.
      outside: { held: (caseFile) => this.slots.holder(ClientSlots.keyOf(caseFile)) !== undefined, onRelease: (listener) => this.slots.onRelease(listener) },
    });
    return queue.view(this.lookups());
  }

  private fileEntry(file: string): BatchEntry {
    try {
      return { source: file, caseFile: loadCaseFromFolder(this.options.casesDir, file) };
    } catch (err) {
      return { source: file, problem: err instanceof ConfigFileError ? err.problem : errorText(err) };
    }
  }

  /** Every case file of a folder of the cases folder ('' is the cases folder itself), as `portal-desk batch DIR` reads it. */
  private folderEntries(folder: string): BatchEntry[] {
    const path = resolveInFolder(this.options.casesDir, folder);
    if (!path) throw new ConsoleRequestError(`"${folder}" is not a folder in the cases folder`);
    const prefix = folder.replace(/\/+$/, '');
    // Each case file read under the cases folder, as a single file is (no link followed out of it).
    return readdirSync(path)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => this.fileEntry(`${prefix ? `${prefix}/` : ''}${name}`));
  }

  /** One case of the office queue, run in this console as a live run (the office worker holds the client's lock meanwhile). */
  private async runOfficeCase(caseFile: CaseFile, resume: Parameters<CaseExecutor>[1], hooks: CaseHooks): ReturnType<CaseExecutor> {
    const office = this.requireOffice();
    const baseProfile = loadPortalProfile(caseFile.portal, this.portalFolders);
    const slot = ClientSlots.keyOf(caseFile);
    await this.slots.claim(slot);
    if (this.closing) {
      this.slots.release(slot);
      throw new ConsoleRequestError('The console is closing; the case goes back to the office queue');
    }
    const live = this.register(caseFile, slot, { runId: resume?.runId ?? newRunId(), resumed: !!resume, planner: this.officePlanner });
    const planner = this.officePlanner;
    const gates = await office.gates(caseFile);
    const [outcome] = await runBatch([{ source: caseFile.caseId, caseFile }], {
      concurrency: 1,
      services: this.sharedServices(),
      prepare: () => this.prepareRun(live, caseFile, baseProfile, { planner, resume: !!resume, gates }),
      listener: { started: (_c, runId) => hooks.onStart(runId), status: (_c, status) => hooks.onStatus(status) },
    });
    if (!outcome || outcome.status === 'invalid' || outcome.status === 'error') throw new ConsoleRequestError(outcome?.reason ?? 'the run did not start');
    return { runId: outcome.runId ?? live.runId, status: outcome.status, reason: outcome.reason, ...(outcome.applicationNumber ? { applicationNumber: outcome.applicationNumber } : {}) };
  }

  private requireOffice(): OfficeDesk {
    if (!this.office) throw new ConsoleRequestError('No office database is configured: start the console with PORTAL_DESK_DATABASE_URL=postgres://… to join the office queue');
    return this.office;
  }

  /** What a queue asks of the console about its entries' runs. */
  private lookups(): QueueLookups {
    return {
      clerkWait: (runId) => this.clerkWait(runId),
      waitExpiresAt: (runId) => this.desk.pendingApproval(runId)?.expiresAt,
      slotHolder: (e) => this.slots.holder(ClientSlots.keyOf(e)),
      record: (runId) => this.records.get(runId),
      phase: (runId) => this.live.get(runId)?.phase,
    };
  }

  /** What the run waits for from a clerk, in one line; null when nothing. */
  private clerkWait(runId: string): string | null {
    const line = this.desk.waitLine(runId);
    if (line !== null) return line;
    const record = this.records.get(runId);
    if (record && (record.status === 'awaiting_approval' || record.status === 'awaiting_input')) return record.reason ?? 'Waiting for a clerk';
    return null;
  }

  private emitQueue(queue: CaseQueue): void {
    this.feed.emit({ type: 'queue', queue: queue.view(this.lookups()) });
  }

  // ---- Views and events ----------------------------------------------------------------------

  private async viewOf(run: RunRecord): Promise<RunView> {
    const live = this.live.get(run.id);
    const pendingApproval = this.desk.pendingApproval(run.id);
    const approval = pendingReading(live?.approval, pendingApproval);
    return {
      run,
      pendingApproval,
      pendingInput: this.desk.pendingInput(run.id),
      pendingTakeOver: this.desk.pendingTakeOver(run.id),
      approvalDetail: approval ? { step: approval.step, fullPage: approval.fullPagePng !== null, review: approval.review } : null,
      phase: live ? live.phase : null,
      displayName: displayNameFrom(run),
    };
  }

  /** The run's phase from its page's navigations: opening the portal, signing in by code, reading the page. */
  private followPhases(live: LiveRun, page: Page): void {
    const signIn = live.profile.signIn?.urlContains;
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame() || live.frozen) return;
      const url = frame.url();
      if (url === 'about:blank') return;
      const next: RunPhase = signIn && url.includes(signIn) ? 'signing_in' : 'reading_page';
      if (live.phase === next) return;
      live.phase = next;
      void this.emitRun(live.runId);
    });
  }

  /** The store as a run writes to it: every write dropped once the run is frozen (the console closed). */
  private frozenWhenClosed(flag: { readonly frozen: boolean }): Store {
    const store = this.store;
    return new Proxy(store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        if (RUN_WRITES.has(prop)) return (...args: unknown[]) => (flag.frozen ? Promise.resolve(undefined) : (value as (...a: unknown[]) => unknown).apply(target, args));
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  }

  /** The run as the store has it, or as the console shows it while its browser starts (or after it could not start). */
  private async recordOf(runId: string): Promise<RunRecord | null> {
    const stored = await this.store.getRun(runId);
    return stored ?? this.live.get(runId)?.placeholder ?? this.unstarted.get(runId) ?? null;
  }

  private async requireRun(runId: string): Promise<RunRecord> {
    const run = await this.recordOf(runId);
    if (!run) throw new ConsoleRequestError(`No run "${runId}" in this console's store`);
    return run;
  }

  private async emitRun(runId: string): Promise<void> {
    if (this.closing) return;
    const run = await this.recordOf(runId).catch(() => null);
    if (!run) return;
    this.records.set(runId, run);
    this.feed.emit({ type: 'run', view: await this.viewOf(run) });
    for (const queue of this.queues.values()) if (queue.holds(runId)) this.emitQueue(queue);
  }
}

/** The office panel when no office database is configured. */
const NO_OFFICE: OfficeView = { configured: false, joined: false, slots: 0, queued: 0, active: 0, waits: [] };

const RUN_BY_ANOTHER = 'The lab this console uses is run by another process (console --lab-url), whose owner sets its layouts; start the run without a layout';

/** A new run as the console shows it while its browser starts: the store has no record of it yet. */
function startingRecord(runId: string, caseFile: CaseFile, planner: 'rules' | 'anthropic', layout: string | undefined): RunRecord {
  return {
    id: runId,
    caseId: caseFile.caseId,
    clientId: caseFile.clientId,
    portal: caseFile.portal,
    task: caseFile.task,
    planner,
    approveMode: 'ask',
    status: 'queued',
    reason: 'Starting',
    caseJson: JSON.stringify({ caseFile, planner, layout }),
    ...(layout ? { layout } : {}),
    startedAt: new Date().toISOString(),
    stepCount: 0,
    usage: ZERO_USAGE,
  };
}

const displayNames = new Map<string, string>();

function displayNameFrom(run: RunRecord): string {
  let name = displayNames.get(run.id);
  if (name === undefined) {
    try {
      const stored = JSON.parse(run.caseJson) as { caseFile?: { clientId?: string; fields?: Record<string, unknown> } };
      name = displayNameOf({ clientId: run.clientId, fields: (stored.caseFile?.fields ?? {}) as CaseFile['fields'] });
    } catch {
      name = run.clientId;
    }
    displayNames.set(run.id, name);
  }
  return name;
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

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

