import type { Page } from 'playwright-core';
import { errorText } from '../base/error-text';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile } from '../agent/case/portal-profiles';
import { AnthropicConfigError } from '../agent/decide/anthropic';
import { newRunId } from '../agent/loop/run-id';
import { runBatch, type BatchRun } from '../service/batch';
import { bindDemo, type DemoPortals } from '../service/demo-portals';
import type { CaseExecutor, CaseHooks } from '../service/office-queue';
import { createPlanner } from '../service/planners';
import type { RunServices } from '../service/run-service';
import { routesFor } from '../service/learned-routes';
import { CaseFile } from '../shared/case-file';
import type { ApprovalGate, InputSource } from '../shared/clerk';
import type { RunPhase } from '../shared/console-api';
import type { PortalProfile } from '../shared/portal-profile';
import { FINAL_STATUSES } from '../shared/run';
import type { Store } from '../store';
import { CredentialChain } from '../vault';
import { loadCaseFromFolder } from './case-folder';
import type { ClerkDesk } from './clerk-desk';
import type { ConsoleFeed } from './console-feed';
import { ConsoleRequestError } from './console-request-error';
import type { ConsoleResources } from './console-resources';
import type { ConsoleServiceOptions } from './console-service';
import type { LiveRun, LiveRuns } from './live-runs';
import type { OfficeDesk } from './office-desk';
import { startScreencast } from './screencast';

interface RunLauncherOptions {
  /** What the service was opened with: the cases folder, limits, waits, the shell's start gate. */
  service: ConsoleServiceOptions;
  env: Record<string, string | undefined>;
  portalFolders: string[];
  demo: DemoPortals | undefined;
  store: Store;
  desk: ClerkDesk;
  /** The clerk's approval gate for every run (ApprovalDetails.gate). */
  approvals: () => ApprovalGate;
  runs: LiveRuns;
  feed: ConsoleFeed;
  resources: ConsoleResources;
  closing: () => boolean;
}

/** What the clerk (or a queue, or the office) chose for one run. */
interface RunChoice {
  planner: 'rules' | 'anthropic';
  layout?: 'original' | 'redesigned';
  resume: boolean;
  /** An office case's gates: its approvals and questions are rows any clerk of the office answers. */
  gates?: { approvals: ApprovalGate; inputs: InputSource };
}

/** The store's writes a run makes: dropped once the console closes, so a closing console never ends a run on the clerk's behalf. */
const RUN_WRITES = new Set<string | symbol>(['createRun', 'recordStep', 'updateRun', 'saveProgress', 'recordModelPayload']);

const RUN_BY_ANOTHER = 'The lab this console uses is run by another process (console --lab-url), whose owner sets its layouts; start the run without a layout';

/**
 * How a console run starts, whoever starts it (the clerk's Start run and Resume, a queue's case,
 * an office case): what was chosen is checked first, then the run goes through the batch machinery
 * (src/service/batch.ts) wired into the console: its portal bound, its browser, the live view, its
 * phases and steps shown, its store frozen once the console closes.
 */
export class RunLauncher {
  constructor(private readonly o: RunLauncherOptions) {}

  /** The clerk's Start run: the case file, its portal, planner and layout checked before anything runs. */
  async start(p: { file: string; planner: 'rules' | 'anthropic'; layout?: 'original' | 'redesigned' }): Promise<{ runId: string }> {
    let caseFile: CaseFile;
    let baseProfile: PortalProfile;
    try {
      caseFile = loadCaseFromFolder(this.o.service.casesDir, p.file);
      baseProfile = loadPortalProfile(caseFile.portal, this.o.portalFolders);
      createPlanner(p.planner, baseProfile, {}, this.o.env);
    } catch (err) {
      if (err instanceof ConfigFileError || err instanceof AnthropicConfigError) throw new ConsoleRequestError(err.message);
      throw err;
    }
    if (p.layout && !this.o.demo?.portalId(baseProfile)) throw new ConsoleRequestError('A layout applies to lab portals only');
    if (p.layout && !this.o.demo!.layouts) throw new ConsoleRequestError(RUN_BY_ANOTHER);
    // The run exists for the clerk at once (its Run screen shows the browser starting); the store has it a moment later.
    const live = this.o.runs.claimAndRegister(caseFile, { runId: newRunId(), resumed: false, planner: p.planner, layout: p.layout });
    this.inBackground(live, caseFile, baseProfile, { planner: p.planner, layout: p.layout, resume: false });
    return { runId: live.runId };
  }

  /** Continues an interrupted run of this store under its own id: a fresh portal binding, the stored case, planner and layout. */
  async resume(runId: string): Promise<{ runId: string }> {
    const run = await this.o.runs.requireRun(runId);
    if (this.o.runs.get(runId)) throw new ConsoleRequestError(`Run ${runId} is already running in this console`);
    if (FINAL_STATUSES.includes(run.status)) throw new ConsoleRequestError(`Run ${runId} is ${run.status}; a final run is not resumed. Start the case again instead.`);
    if (run.status !== 'interrupted') throw new ConsoleRequestError(`Run ${runId} is ${run.status} in another process; only an interrupted run is resumed`);
    let caseFile: CaseFile;
    let baseProfile: PortalProfile;
    let stored: { planner?: unknown; layout?: unknown };
    try {
      stored = JSON.parse(run.caseJson) as { caseFile?: unknown; planner?: unknown; layout?: unknown };
      caseFile = CaseFile.parse((stored as { caseFile?: unknown }).caseFile);
      baseProfile = loadPortalProfile(caseFile.portal, this.o.portalFolders);
    } catch (err) {
      throw new ConsoleRequestError(`Run ${runId} cannot be resumed: its stored case or portal cannot be read (${errorText(err)})`);
    }
    const planner = stored.planner === 'anthropic' ? 'anthropic' : 'rules';
    // On a lab another process runs (console --lab-url) its owner sets the layout: the stored one is not asked for again.
    const layout = (stored.layout === 'original' || stored.layout === 'redesigned') && this.o.demo?.layouts !== false ? stored.layout : undefined;
    const live = this.o.runs.claimAndRegister(caseFile, { runId, resumed: true, planner, layout });
    this.inBackground(live, caseFile, baseProfile, { planner, layout, resume: true });
    return { runId };
  }

  /** One case of the office queue, run in this console as a live run (the office worker holds the client's lock meanwhile). */
  async officeCase(office: OfficeDesk, caseFile: CaseFile, resume: Parameters<CaseExecutor>[1], hooks: CaseHooks): ReturnType<CaseExecutor> {
    const baseProfile = loadPortalProfile(caseFile.portal, this.o.portalFolders);
    const slot = await this.o.runs.waitForSlot(caseFile, 'The console is closing; the case goes back to the office queue');
    const planner = office.planner;
    const live = this.o.runs.register(caseFile, slot, { runId: resume?.runId ?? newRunId(), resumed: !!resume, planner });
    const gates = await office.gates(caseFile);
    const [outcome] = await runBatch([{ source: caseFile.caseId, caseFile }], {
      concurrency: 1,
      services: this.sharedServices(),
      prepare: () => this.prepare(live, caseFile, baseProfile, { planner, resume: !!resume, gates }),
      listener: { started: (_c, runId) => hooks.onStart(runId), status: (_c, status) => hooks.onStatus(status) },
    });
    if (!outcome || outcome.status === 'invalid' || outcome.status === 'error') throw new ConsoleRequestError(outcome?.reason ?? 'the run did not start');
    return { runId: outcome.runId ?? live.runId, status: outcome.status, reason: outcome.reason, ...(outcome.applicationNumber ? { applicationNumber: outcome.applicationNumber } : {}) };
  }

  /** One case as a batch of one: the same machinery as a queue's, in the background. */
  private inBackground(live: LiveRun, caseFile: CaseFile, baseProfile: PortalProfile, run: RunChoice): void {
    void runBatch([{ source: caseFile.caseId, caseFile }], {
      concurrency: 1,
      services: this.sharedServices(),
      prepare: () => this.prepare(live, caseFile, baseProfile, run),
    });
  }

  /** What every console run shares; each run adds its own logins, store view and gates (prepare). */
  sharedServices(): Omit<RunServices, 'browser'> {
    return {
      store: this.o.store,
      approvals: this.o.approvals(),
      inputs: this.o.desk,
      takeOvers: this.o.desk,
      credentials: { get: async (clientId, portalId) => (await this.o.resources.openedVault()).vault.get(clientId, portalId) },
      env: this.o.env,
      demo: this.o.demo,
      ...routesFor(this.o.store),
    };
  }

  /**
   * Everything one run needs, for the batch machinery to run it: the portal bound (a lab portal to
   * the lab), the browser, the run's own wiring into the console (live view, phases, steps, the
   * store frozen when the console closes) and what happens when it is over (release). A run that
   * cannot start is shown failed with the reason.
   */
  async prepare(live: LiveRun, caseFile: CaseFile, baseProfile: PortalProfile, run: RunChoice): Promise<BatchRun> {
    const runId = live.runId;
    const { runs, demo, service } = this.o;
    try {
      const { profile, lab } = await bindDemo(demo, baseProfile);
      if (!lab && run.layout) throw new ConsoleRequestError('A layout applies to lab portals only');
      // Only a change of layout reconfigures: configure re-arms the lab's CAPTCHA, which the clerk may just have solved.
      const variant = lab?.variant(caseFile.clientId);
      if (lab && run.layout && !variant) throw new ConsoleRequestError(RUN_BY_ANOTHER);
      if (lab && variant && run.layout && variant.layout !== run.layout) lab.configure(caseFile.clientId, { ...variant, layout: run.layout });
      live.profile = profile;
      const { vault, loginStates } = await this.o.resources.openedVault();
      const browser = await this.o.resources.browserFor(lab ? 'lab' : 'plain');
      if (this.o.closing()) throw new ConsoleRequestError('The console is shutting down');
      live.phase = 'opening_portal';
      void runs.emitRun(runId);
      const gate = service.startGate;
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
          credentials: new CredentialChain(lab && demo ? [vault, demo.credentials] : [vault]),
          loginStates,
          ...(run.gates ?? {}),
        },
        request: {
          profile,
          planner: run.planner,
          approveMode: 'ask',
          layout: lab ? (run.layout ?? variant?.layout) : undefined,
          limits: service.limits,
          ...(service.wait ? { wait: service.wait } : {}),
          ...(run.resume ? { runId } : { newRunId: runId }),
          listener: {
            step: (step) => {
              if (live.frozen) return;
              live.phase = 'reading_page';
              this.o.feed.emit({ type: 'step', runId, step });
              void runs.emitRun(runId);
            },
            status: (_status, reason) => {
              live.phase = /^The portal is not answering/.test(reason ?? '') ? 'waiting_portal' : live.phase === 'waiting_portal' ? 'reading_page' : live.phase;
              void runs.emitRun(runId);
            },
          },
          onStart: () => {
            live.endStart?.();
            void runs.emitRun(runId);
          },
          onPage: async (page) => {
            live.page = page;
            this.followPhases(live, page);
            try {
              live.screencast = await startScreencast(page, (jpegBase64) => this.o.feed.frame(runId, jpegBase64));
            } catch {
              // No live view (the page closed at once); the step screenshots still come.
            }
          },
        },
        release: () => runs.release(live),
      };
    } catch (err) {
      await runs.release(live, err);
      throw err;
    }
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
      void this.o.runs.emitRun(live.runId);
    });
  }

  /** The store as a run writes to it: every write dropped once the run is frozen (the console closed). */
  private frozenWhenClosed(flag: { readonly frozen: boolean }): Store {
    const store = this.o.store;
    return new Proxy(store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        if (RUN_WRITES.has(prop)) return (...args: unknown[]) => (flag.frozen ? Promise.resolve(undefined) : (value as (...a: unknown[]) => unknown).apply(target, args));
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  }
}
