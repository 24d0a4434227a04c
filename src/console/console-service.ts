import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { z } from 'zod';
import { saveRunReport } from '../audit';
import { launchChromium } from '../agent/browser/chromium';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile, profileFolders } from '../agent/case/portal-profiles';
import { describeZodError } from '../agent/case/zod-message';
import { AnthropicConfigError } from '../agent/decide/anthropic';
import type { RunLimits } from '../agent/loop/limits';
import { CaseFile } from '../shared/case-file';
import { RESEND_CODE, type ApprovalGate, type ApprovalRequest } from '../shared/clerk';
import type { PortalProfile } from '../shared/portal-profile';
import {
  ConsoleEvent,
  ConsoleMethods,
  type ConsoleMethod,
  type ConsoleResult,
  type ReviewRow,
  type RunPhase,
  type RunView,
} from '../shared/console-api';
import { FINAL_STATUSES, type RunRecord } from '../shared/run';
import { bindDemo, type DemoPortals } from '../service/demo-portals';
import { createPlanner } from '../service/planners';
import { executeRun } from '../service/run-service';
import { routesFor } from '../service/learned-routes';
import { openStore, type Store } from '../store';
import { CredentialChain, openVault, type KeySource, type OpenedVault } from '../vault';
import { readApproval } from './approval-detail';
import { displayNameOf, listCaseFiles, loadCaseFromFolder } from './case-folder';
import { ClerkDesk, ConsoleClosedError } from './clerk-desk';
import { playClerkInput } from './take-over-input';
import { listPortalProfiles, modelStatus } from './portal-settings';
import { startScreencast, type Screencast } from './screencast';
import { errorText } from '../base/error-text';
import { PortalDeskError } from '../base/portal-desk-error';

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
  /** Where "Export report" writes reports (0600). Default: `reports/` beside the store. */
  reportsDir?: string;
}

type Params<M extends ConsoleMethod> = z.output<(typeof ConsoleMethods)[M]['params']>;
type Handlers = { [M in ConsoleMethod]: (params: Params<M>) => Promise<ConsoleResult<M>> };

/** A request the console refuses: unknown method, bad parameters, a run that cannot start. The message is for the clerk. */
class ConsoleRequestError extends PortalDeskError {}

interface LiveRun {
  runId: string;
  screencast?: Screencast;
  finished: Promise<void>;
  /** The run's portal page (take-over input, approval pictures). */
  page?: Page;
  caseFile: CaseFile;
  profile: PortalProfile;
  phase: RunPhase;
  /** The console closed: nothing this run's loop writes from now on reaches the store (it stays `interrupted`). */
  frozen: boolean;
  /** What the pending approval will do, read from the page when it was asked. */
  approval?: { step: number; review: ReviewRow[] | null; fullPagePng: Buffer | null };
}

/** The store's writes a run makes: dropped once the console closes, so a closing console never ends a run on the clerk's behalf. */
const RUN_WRITES = new Set<string | symbol>(['createRun', 'recordStep', 'updateRun', 'saveProgress', 'recordModelPayload']);

/** Most recent frames kept per run, so a UI that connects late sees the page at once. */
const KEPT_FRAMES = 24;

/**
 * The console's composition root below the UI: case files, runs (concurrent, each parked on the
 * clerk desk while it waits), the live screencast, replay queries, export, and settings. Electron
 * IPC and the browser console's WebSocket both call `handle` and `subscribe`.
 */
export class ConsoleService {
  private readonly listeners = new Set<(event: ConsoleEvent) => void>();
  private readonly live = new Map<string, LiveRun>();
  /** client + portal → the run holding it ('' while it starts). */
  private readonly busy = new Map<string, string>();
  private readonly frames = new Map<string, string>();
  private readonly desk: ClerkDesk;
  private readonly demo: DemoPortals | undefined;
  private readonly env: Record<string, string | undefined>;
  private readonly portalFolders: string[];
  private readonly browsers = new Map<'lab' | 'plain', Promise<Browser>>();
  private vault: Promise<OpenedVault> | undefined;
  private closing = false;
  private readonly handlers: Handlers;

  private constructor(
    private readonly options: ConsoleServiceOptions,
    private readonly store: Store,
  ) {
    this.env = options.env ?? process.env;
    this.demo = options.demo;
    this.portalFolders = profileFolders(options.portalFolders ?? []);
    this.desk = new ClerkDesk(options.clerkName ?? clerkNameFrom(this.env), (runId) => void this.emitRun(runId));
    this.handlers = this.makeHandlers();
  }

  static async open(options: ConsoleServiceOptions): Promise<ConsoleService> {
    const store = openStore(options.dbPath);
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

  subscribe(listener: (event: ConsoleEvent) => void): () => void {
    this.listeners.add(listener);
    // The latest frame of each live run, so a screen opened mid-run is not blank until the page repaints.
    queueMicrotask(() => {
      for (const runId of this.live.keys()) {
        const frame = this.frames.get(runId);
        if (frame && this.listeners.has(listener)) deliver(listener, { type: 'frame', runId, jpegBase64: frame });
      }
    });
    return () => this.listeners.delete(listener);
  }

  /**
   * Closes the console (Ctrl+C, the window closing). Nothing is approved, denied or declined on
   * the clerk's behalf: each live run is recorded `interrupted` with what it waited for, its
   * loop's further writes are dropped, and `resumeRun` (or `portal-desk resume`) continues it.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
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
    for (const browser of this.browsers.values()) await (await browser.catch(() => null))?.close().catch(() => undefined);
    await settleWithin([...this.live.values()].map((r) => r.finished), 5_000);
    this.listeners.clear();
    this.store.close();
  }

  // ---- Methods -------------------------------------------------------------------------------

  private makeHandlers(): Handlers {
    return {
      listCases: async () => listCaseFiles(this.options.casesDir, this.portalFolders),
      startRun: (p) => this.startRun(p),
      listRuns: async (p) => Promise.all((await this.store.listRuns({ status: p.status, limit: 200 })).map((run) => this.viewOf(run))),
      getRun: async (p) => this.viewOf(await this.requireRun(p.runId)),
      listSteps: async (p) => {
        await this.requireRun(p.runId);
        return this.store.listSteps(p.runId);
      },
      getScreenshot: async (p) => {
        const png = await this.store.getScreenshot(p.hash);
        return { pngBase64: png ? Buffer.from(png).toString('base64') : null };
      },
      decide: async (p) => ({ accepted: this.desk.decide(p.runId, p.decision, p.note) }),
      answer: async (p) => ({ accepted: this.desk.answer(p.runId, p.value) }),
      verifyRun: async (p) => {
        await this.requireRun(p.runId);
        // The whole answer: the replay screen shows which field broke and what the chain cannot prove.
        return this.store.verifyRun(p.runId);
      },
      exportRun: async (p) => {
        const run = await this.requireRun(p.runId);
        const secrets = await this.secretsOf(run);
        // Written by this process, owner-only (0600), into the reports folder beside the store: a browser download would be world-readable.
        const saved = await saveRunReport(this.store, p.runId, this.options.reportsDir ?? join(dirname(this.options.dbPath), 'reports'), { secrets });
        return { fileName: saved.fileName, savedTo: saved.path, bytes: saved.bytes };
      },
      listPortals: async () => listPortalProfiles(this.portalFolders, this.demo),
      listCredentials: async () => {
        const { vault } = await this.openedVault();
        return (await vault.list()).map((e) => ({ clientId: e.clientId, portal: e.portalId, username: e.username, updatedAt: e.updatedAt }));
      },
      setCredential: async (p) => {
        const { vault } = await this.openedVault();
        await vault.set(p.clientId, p.portal, { username: p.username, password: p.password });
        return { saved: true };
      },
      removeCredential: async (p) => {
        const { vault } = await this.openedVault();
        return { removed: await vault.remove(p.clientId, p.portal) };
      },
      modelStatus: async () => modelStatus(this.env),
      takeOver: async (p) => {
        const live = this.live.get(p.runId);
        const run = live ? await this.store.getRun(p.runId) : null;
        return { accepted: this.desk.startTakeOver(p.runId, live && run ? { step: run.stepCount } : null) };
      },
      handBack: async (p) => ({ accepted: this.desk.handBack(p.runId, p.decision, p.note) }),
      takeOverInput: async (p) => {
        const page = this.live.get(p.runId)?.page;
        // Only while the clerk has the portal: otherwise the agent is working it, and input would race it.
        if (!page || !this.desk.isTakenOver(p.runId)) return { accepted: false };
        await playClerkInput(page, p.events, (addresses) => this.desk.noteGesture(p.runId, addresses));
        return { accepted: true };
      },
      resumeRun: (p) => this.resumeRun(p.runId),
      resendCode: async (p) => ({ accepted: this.desk.pendingInput(p.runId)?.canResend === true && this.desk.answer(p.runId, RESEND_CODE) }),
      approvalPicture: async (p) => {
        const approval = this.live.get(p.runId)?.approval;
        const pending = this.desk.pendingApproval(p.runId);
        const png = approval && pending && approval.step === pending.step ? approval.fullPagePng : null;
        return { pngBase64: png ? png.toString('base64') : null };
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
    const layout = stored.layout === 'original' || stored.layout === 'redesigned' ? stored.layout : undefined;
    const slot = this.claimSlot(caseFile);
    let handedOver = false;
    try {
      const started = await this.launch(caseFile, baseProfile, { file: '', planner, ...(layout ? { layout } : {}) }, slot, runId);
      handedOver = true;
      return started;
    } finally {
      if (!handedOver) this.busy.delete(slot);
    }
  }

  /** One run per client and portal at a time: two would share the portal account and could submit twice. */
  private claimSlot(caseFile: CaseFile): string {
    const slot = `${caseFile.clientId}\u0000${caseFile.portal}`;
    const holder = this.busy.get(slot);
    if (holder !== undefined) {
      throw new ConsoleRequestError(`A run for client ${caseFile.clientId} on ${caseFile.portal} is already in progress${holder ? ` (${holder})` : ''}; let it finish first`);
    }
    this.busy.set(slot, '');
    return slot;
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
    const slot = this.claimSlot(caseFile);
    let handedOver = false;
    try {
      const runId = await this.launch(caseFile, baseProfile, p, slot);
      handedOver = true;
      return runId;
    } finally {
      if (!handedOver) this.busy.delete(slot);
    }
  }

  /** Starts the run and resolves with its id once it exists in the store; the run goes on after. */
  private async launch(caseFile: CaseFile, baseProfile: PortalProfile, p: Params<'startRun'>, slot: string, resumeId?: string): Promise<{ runId: string }> {
    const { profile, lab } = await bindDemo(this.demo, baseProfile);
    if (!lab && p.layout) throw new ConsoleRequestError('A layout applies to lab portals only');
    // Only a change of layout reconfigures: configure re-arms the lab's CAPTCHA, which the clerk may just have solved.
    if (lab && p.layout && lab.variant(caseFile.clientId).layout !== p.layout) lab.configure(caseFile.clientId, { ...lab.variant(caseFile.clientId), layout: p.layout });

    const { vault, loginStates } = await this.openedVault();
    const browser = await this.browserFor(lab ? 'lab' : 'plain');

    return new Promise((resolveStart, rejectStart) => {
      let runId: string | undefined;
      let live: LiveRun | undefined;
      let settled!: () => void;
      const finished = new Promise<void>((r) => (settled = r));
      const frozen = { get frozen() {
        return live?.frozen ?? false;
      } };

      const execution = executeRun(
        {
          store: this.frozenWhenClosed(frozen),
          browser,
          approvals: this.approvalsFor(),
          inputs: this.desk,
          takeOvers: this.desk,
          credentials: new CredentialChain(lab && this.demo ? [vault, this.demo.credentials] : [vault]),
          loginStates,
          env: this.env,
          demo: this.demo,
          ...routesFor(this.store),
        },
        {
          caseFile,
          profile,
          planner: p.planner,
          approveMode: 'ask',
          layout: lab ? (p.layout ?? lab.variant(caseFile.clientId).layout) : undefined,
          limits: this.options.limits,
          ...(resumeId ? { runId: resumeId } : {}),
          listener: {
            step: (step) => {
              if (!runId || live?.frozen) return;
              if (live) live.phase = 'reading_page';
              this.emit({ type: 'step', runId, step });
              void this.emitRun(runId);
            },
            status: (_status, reason) => {
              if (live) live.phase = /^The portal is not answering/.test(reason ?? '') ? 'waiting_portal' : live.phase === 'waiting_portal' ? 'reading_page' : live.phase;
              if (runId) void this.emitRun(runId);
            },
          },
          onStart: (id) => {
            runId = id;
            this.busy.set(slot, id);
            live = { runId: id, finished, caseFile, profile, phase: 'opening_portal', frozen: false };
            this.live.set(id, live);
            void this.emitRun(id);
            resolveStart({ runId: id });
          },
          onPage: async (page) => {
            const id = runId;
            if (!id || !live) return;
            live.page = page;
            this.followPhases(live, page);
            try {
              live.screencast = await startScreencast(page, (jpegBase64) => this.frame(id, jpegBase64));
            } catch {
              // No live view (the page closed at once); the step screenshots still come.
            }
          },
        },
      );

      execution
        .catch(async (err: unknown) => {
          // The console closed under a waiting run: it stays `interrupted`, as close() recorded it.
          if (live?.frozen || err instanceof ConsoleClosedError) return;
          if (!runId) {
            rejectStart(new ConsoleRequestError(`The run could not start: ${errorText(err)}`));
            await this.failOrphans(caseFile, errorText(err));
            return;
          }
          // The loop records its own ending; an error outside it (the browser went away) is recorded here.
          const run = await this.store.getRun(runId).catch(() => null);
          if (run && !FINAL_STATUSES.includes(run.status)) {
            await this.store.updateRun(runId, { status: 'failed', reason: `Run stopped by an error: ${errorText(err)}`, endedAt: new Date().toISOString() }).catch(() => undefined);
          }
        })
        .finally(async () => {
          this.busy.delete(slot);
          if (runId) {
            await live?.screencast?.stop();
            this.desk.release(runId);
            this.live.delete(runId);
            this.trimFrames();
            if (!this.closing) await this.emitRun(runId);
          }
          settled();
        });
    });
  }

  // ---- Views and events ----------------------------------------------------------------------

  private async viewOf(run: RunRecord): Promise<RunView> {
    const live = this.live.get(run.id);
    const pendingApproval = this.desk.pendingApproval(run.id);
    const approval = live?.approval && pendingApproval && live.approval.step === pendingApproval.step ? live.approval : undefined;
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

  /** The clerk's approval gate for a run, which also reads what the approval will do (the whole page, a review page's values) for the card. */
  private approvalsFor(): ApprovalGate {
    return {
      request: (req) => {
        const answer = this.desk.request(req);
        void this.readApprovalDetail(req);
        return answer;
      },
    };
  }

  private async readApprovalDetail(req: ApprovalRequest): Promise<void> {
    const live = this.live.get(req.runId);
    if (!live?.page) return;
    const run = await this.store.getRun(req.runId).catch(() => null);
    const clerkValues = run ? ((JSON.parse(run.caseJson) as { clerkValues?: Record<string, string> }).clerkValues ?? {}) : {};
    const reading = await readApproval(live.page, live.profile, live.caseFile, clerkValues);
    if (this.desk.pendingApproval(req.runId)?.step !== req.step) return;
    live.approval = { step: req.step, review: reading.review, fullPagePng: reading.fullPagePng };
    await this.emitRun(req.runId);
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

  private async requireRun(runId: string): Promise<RunRecord> {
    const run = await this.store.getRun(runId);
    if (!run) throw new ConsoleRequestError(`No run "${runId}" in this console's store`);
    return run;
  }

  private async emitRun(runId: string): Promise<void> {
    if (this.closing) return;
    const run = await this.store.getRun(runId).catch(() => null);
    if (run) this.emit({ type: 'run', view: await this.viewOf(run) });
  }

  private frame(runId: string, jpegBase64: string): void {
    this.frames.delete(runId);
    this.frames.set(runId, jpegBase64);
    this.emit({ type: 'frame', runId, jpegBase64 });
  }

  private trimFrames(): void {
    for (const runId of this.frames.keys()) {
      if (this.frames.size <= KEPT_FRAMES) break;
      if (!this.live.has(runId)) this.frames.delete(runId);
    }
  }

  private emit(event: ConsoleEvent): void {
    if (this.listeners.size === 0) return;
    // What crosses to the UI is checked here once, whichever channel carries it.
    const checked = ConsoleEvent.parse(event);
    for (const listener of this.listeners) deliver(listener, checked);
  }

  // ---- Resources -----------------------------------------------------------------------------

  private openedVault(): Promise<OpenedVault> {
    this.vault ??= openVault({ env: this.env as NodeJS.ProcessEnv, vaultDir: this.options.vaultDir, keySource: this.options.keySource }).catch((err: unknown) => {
      this.vault = undefined;
      throw err;
    });
    return this.vault;
  }

  /** One shared browser per kind: lab portals need the lab's host mapping, which would hide every real portal. */
  private browserFor(kind: 'lab' | 'plain'): Promise<Browser> {
    const factory = this.options.browser;
    const key = factory ? 'plain' : kind;
    let browser = this.browsers.get(key);
    if (!browser) {
      browser = factory
        ? factory()
        : kind === 'lab' && this.demo
          ? this.demo.get().then((lab) => launchChromium({ hostResolverRules: lab.hostResolverRules }))
          : launchChromium();
      browser.catch(() => this.browsers.delete(key));
      this.browsers.set(key, browser);
    }
    return browser;
  }

  /** Stored passwords for the run's client and portal: the export's final scan refuses any report containing one. */
  private async secretsOf(run: RunRecord): Promise<string[]> {
    const { vault } = await this.openedVault();
    const sources = this.demo ? [vault, this.demo.credentials] : [vault];
    const secrets: string[] = [];
    for (const source of sources) {
      const credentials = await source.get(run.clientId, run.portal).catch(() => null);
      if (credentials) secrets.push(credentials.password);
    }
    return secrets;
  }

  /** A run that failed before it handed over its id is left `running` in the store: close it honestly. */
  private async failOrphans(caseFile: CaseFile, reason: string): Promise<void> {
    const running = await this.store.listRuns({ status: 'running', limit: 50 }).catch(() => [] as RunRecord[]);
    for (const run of running) {
      if (run.caseId !== caseFile.caseId || this.live.has(run.id) || run.stepCount > 0) continue;
      await this.store
        .updateRun(run.id, { status: 'failed', reason: `The run could not start: ${reason}`, endedAt: new Date().toISOString() })
        .catch(() => undefined);
      await this.emitRun(run.id);
    }
  }
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

function deliver(listener: (event: ConsoleEvent) => void, event: ConsoleEvent): void {
  try {
    listener(event);
  } catch {
    // One broken listener (a closed socket) does not stop the others.
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

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

