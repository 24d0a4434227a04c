import type { Browser, Page } from 'playwright-core';
import type { AnthropicOptions } from '../agent/decide/anthropic';
import { GuardEventRelay, installWatchdogs } from '../agent/guard/browser';
import { CommitGate } from '../agent/guard/commit-gate';
import { newRunId } from '../agent/loop/run-id';
import type { Planner } from '../agent/decide/planner';
import { RunLoop, type RunListener, type RunResult } from '../agent/loop/run-loop';
import type { RunLimits } from '../agent/loop/limits';
import { createObserver } from '../agent/observe/observer';
import { taskKindOf, type CaseFile } from '../shared/case-file';
import type { ApprovalGate, InputSource, TakeOverDesk } from '../shared/clerk';
import type { CredentialSource, LoginStateStore } from '../shared/credentials';
import type { PortalProfile } from '../shared/portal-profile';
import { FINAL_STATUSES, type ApproveMode, type RunRecord } from '../shared/run';
import { requestMapsOf, type Store } from '../store';
import type { DemoPortals } from './demo-portals';
import { openRouteSession, type RouteReport } from './learned-routes';
import { createPlanner, type PlannerKind } from './planners';
import { executeReadRun } from './read-run';
import type { RouteStore } from '../shared/route';
import { openClientContext } from './client-context';
import { receiptFolder, receiptsHome } from './receipt-folder';
import { RunTrace } from './run-trace';
import type { TraceKeeper } from '../shared/trace';

/** What one run needs from its composition root (the CLI, the console, a batch). */
export interface RunServices {
  store: Store;
  browser: Browser;
  approvals: ApprovalGate;
  inputs: InputSource;
  /** Where the clerk takes the portal over (a bot check, or when asked); without one a bot check ends the run `blocked`. */
  takeOvers?: TakeOverDesk;
  credentials: CredentialSource;
  /** Encrypted saved login state per client and portal; runs reuse it and refresh it. */
  loginStates?: LoginStateStore;
  anthropic?: AnthropicOptions;
  env?: Record<string, string | undefined>;
  /** Learned routes: given, a new run follows its portal and task's route where the pages match, and a run that ends `done` updates it (`routesFor` decides). */
  routes?: RouteStore;
  /** The demo portals, where the root filled in the port (the `adversary` planner needs them). */
  demo?: DemoPortals;
  /** Keeps or drops a run's Playwright trace after scanning it for the run's secrets (`run --trace`; src/audit/trace-file.ts). */
  traces?: TraceKeeper;
}

export interface RunRequest {
  caseFile: CaseFile;
  /** The portal profile, already bound to the lab's port for lab portals. */
  profile: PortalProfile;
  planner: PlannerKind;
  approveMode: ApproveMode;
  layout?: string;
  limits?: Partial<RunLimits>;
  listener?: RunListener;
  /** Given: continue this run (resume); otherwise a new run id is minted. */
  runId?: string;
  /** A new run's id minted by the caller (the console shows the run under it before its browser is up); ignored with `runId`. */
  newRunId?: string;
  /** Called with the run id as soon as the run exists in the store (before the first step). */
  onStart?: (runId: string) => void;
  /** A planner object in place of `planner`'s kind (an eval suite's own model, such as a compromised one). */
  plannerInstance?: Planner;
  /** Called with the portal page once it exists (the console streams it as a screencast). */
  onPage?: (page: Page) => void | Promise<void>;
  /** Record a Playwright trace of the run once code has signed in (`run --trace`); needs `services.traces`. */
  trace?: boolean;
  /** The run's waits on purpose (RunOptions.wait); default a timer. */
  wait?: (ms: number) => Promise<void>;
  /** The run's clock (its time limit, the clerk's waits and their expiry); tests inject one. */
  now?: () => Date;
}

export interface FinishedRun extends RunResult {
  runId: string;
  wallMs: number;
  /** What the run did with its learned route (absent when routes were off). */
  route?: RouteReport;
}

/**
 * Runs one case: a fresh, isolated browser context for the client (downloads off, permissions
 * denied, navigation locked to the portal's hosts), the engine's loop, and the store behind it.
 */
export async function executeRun(services: RunServices, request: RunRequest): Promise<FinishedRun> {
  // A read-only case (its task kind status or extract) reads the portal and touches nothing: no planner loop.
  if (taskKindOf(request.caseFile) !== 'fill') return executeReadRun(services, request);
  const started = Date.now();
  const { store, browser } = services;
  const { caseFile, profile } = request;
  const planner = request.plannerInstance ?? createPlanner(request.planner, profile, services.anthropic, services.env ?? process.env, services.demo);

  let runId = request.runId;
  let firstStep = 0;
  let clerkValues: Record<string, string> = {};
  if (runId) {
    const existing = await store.getRun(runId);
    if (!existing) throw new Error(`No run ${runId} in the store`);
    if (FINAL_STATUSES.includes(existing.status)) {
      throw new Error(`Run ${runId} is already ${existing.status} (${existing.reason ?? 'no reason recorded'}); a final run is not resumed. Start a new run of the case instead.`);
    }
    firstStep = existing.stepCount;
    clerkValues = (JSON.parse(existing.caseJson) as { clerkValues?: Record<string, string> }).clerkValues ?? {};
    // The same client+portal lock as a new run: a second resume of it, or beside a live run of the client, is refused.
    await store.resumeRun(runId, `Resumed at step ${firstStep}`);
  } else {
    runId = request.newRunId ?? newRunId();
    await store.createRun(newRunRecord(runId, request, planner.id), { oneLivePerClient: true });
  }

  // A new run follows its learned route; a resumed one does not (its early pages are in an earlier life).
  const routes =
    services.routes && !request.runId
      ? await openRouteSession(services.routes, store, planner, { profile, portal: caseFile.portal, task: caseFile.task, log: (line) => request.listener?.log?.(line) })
      : undefined;

  // Released however the run ends: a run of the same portal waiting for the route this one learns goes on.
  try {
    const context = await openClientContext(browser, profile, caseFile.clientId, services.loginStates);
    // The browser-level guard is in place before the first page exists; its reports go to the step log.
    const relay = new GuardEventRelay();
    // Requests that can commit something wait here for the clerk, whatever sends them.
    const gate = new CommitGate(profile);
    // What the clerk taught this portal's request map before, and where what they teach now is kept.
    const maps = requestMapsOf(store);
    const keeping = new Set<Promise<unknown>>();
    try {
      const known = await maps.listMap(profile.id);
      gate.learnMap(
        known.map((k) => k.entry),
        (entry, by) => {
          const kept = maps.learn(profile.id, entry, by, runId).catch((err: unknown) => request.listener?.log?.(`The request map entry could not be kept: ${String(err)}`));
          keeping.add(kept);
          void kept.finally(() => keeping.delete(kept));
        },
      );
    } catch (err) {
      request.listener?.log?.(`The learned request map could not be read (${String(err)}); every request it would name is asked about`);
    }
    const watchdogs = await installWatchdogs(context, profile, relay.sink, { gate });
    const page = await watchdogs.openPage();
    if (request.trace && !services.traces) throw new Error('A trace was asked for, but nothing here keeps traces (no trace keeper); nothing was traced');
    const trace = request.trace && services.traces ? new RunTrace(context, services.traces, runId) : undefined;
    request.onStart?.(runId);
    await request.onPage?.(page);
    const loop = new RunLoop({
      runId,
      page,
      profile,
      caseFile,
      planner: routes?.planner ?? planner,
      observer: createObserver(),
      recorder: trace ? trace.recorder(store) : store,
      approvals: services.approvals,
      inputs: services.inputs,
      ...(services.takeOvers ? { takeOvers: services.takeOvers } : {}),
      credentials: services.credentials,
      limits: request.limits,
      ...(request.now ? { now: request.now } : {}),
      listener: trace ? trace.listener(request.listener) : request.listener,
      firstStep,
      clerkValues,
      loginStates: services.loginStates,
      // Beside the SQLite file, or in this desk's data folder for the office store.
      receipts: receiptFolder(receiptsHome(store)),
      gate,
      ...(request.wait ? { wait: request.wait } : {}),
    });
    relay.deliverTo(loop);
    const credentials = await services.credentials.get(caseFile.clientId, profile.id);
    if (credentials) {
      loop.addSecret(credentials.password);
    }

    try {
      const result = await loop.run();
      const route = await routes?.finish({ runId, status: result.status, reason: result.reason });
      // A browser that died under the run has no login state left to keep (the run is `interrupted`).
      if (services.loginStates && context.browser()?.isConnected() !== false) {
        await services.loginStates.save(caseFile.clientId, profile.id, JSON.stringify(await context.storageState()));
      }
      return { ...result, runId, wallMs: Date.now() - started, ...(route ? { route } : {}) };
    } finally {
      await context.close().catch(() => undefined);
      await Promise.allSettled([...keeping]);
      maps.close();
    }
  } finally {
    routes?.release();
  }
}

/** One isolated context per client, with the guard's options, its egress lock and the client's saved login state. */
function newRunRecord(runId: string, request: RunRequest, plannerId: string): Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'> {
  const c = request.caseFile;
  return {
    id: runId,
    caseId: c.caseId,
    clientId: c.clientId,
    portal: c.portal,
    task: c.task,
    planner: plannerId,
    approveMode: request.approveMode,
    status: 'running',
    reason: 'Starting',
    caseJson: JSON.stringify({ caseFile: c, profile: request.profile, planner: request.planner, layout: request.layout }),
    layout: request.layout,
    startedAt: new Date().toISOString(),
  };
}
