import type { Planner, PlanInput, PlanResult } from '../../src/agent/decide/planner';
import { RulesPlanner } from '../../src/agent/decide/rules/rules-planner';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { bindLabProfile, compareSubmission, type LabVariantInput } from '../../lab';
import { LabCredentials } from '../../lab/demo/lab-portals';
import type { ApprovalGate } from '../../src/shared/clerk';
import type { CaseFile } from '../../src/shared/case-file';
import type { Observation } from '../../src/shared/observation';
import { executeRun, type FinishedRun, type RunRequest } from '../../src/service/run-service';
import type { RouteStore } from '../../src/shared/route';
import type { StepRecord } from '../../src/shared/run';
import type { Store } from '../../src/store';
import { openRouteStore } from '../../src/store/route-store';
import { RecordingApprovals, ScriptedInputs, type EngineBench } from '../support/engine';

/** A planner that counts its calls (the route follower's inner planner). */
export class CountingPlanner implements Planner {
  calls = 0;
  readonly id: string;
  readonly description: string;
  constructor(readonly inner: Planner) {
    this.id = inner.id;
    this.description = inner.description;
  }
  start(caseView: Parameters<Planner['start']>[0]) {
    return this.inner.start(caseView);
  }
  decide(input: PlanInput): Promise<PlanResult> {
    this.calls += 1;
    return this.inner.decide(input);
  }
}

export interface RouteRun extends FinishedRun {
  store: Store;
  plannerCalls: number;
  /** The run's step records, as stored. */
  records: StepRecord[];
  /** The lab's submissions of the client in this run (the lab is reset before each run). */
  submissions: number;
  /** Fields the one submission holds that differ from the case file (lab's compareSubmission). */
  mismatches: string[];
  clerk: RecordingApprovals | ApprovalGate;
}

/** One run of a lab case with a learned-route store: fresh lab state, a fresh run store, a planner that counts its calls. */
export async function routeRun(
  bench: EngineBench,
  caseFile: CaseFile,
  routes: RouteStore | undefined,
  options: { layout?: 'original' | 'redesigned'; variant?: LabVariantInput; approvals?: ApprovalGate; planner?: (profile: ReturnType<typeof loadPortalProfile>) => Planner; request?: Partial<RunRequest>; log?: string[] } = {},
): Promise<RouteRun> {
  const layout = options.layout ?? 'original';
  const profile = bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port);
  bench.lab.reset();
  bench.lab.configure(caseFile.clientId, { layout, ...options.variant });
  const store = bench.store();
  const approvals = options.approvals ?? new RecordingApprovals();
  const planner = new CountingPlanner(options.planner ? options.planner(profile) : new RulesPlanner(profile));
  const finished = await executeRun(
    { store, browser: bench.browser, approvals, inputs: new ScriptedInputs(() => null), credentials: new LabCredentials(), ...(routes ? { routes } : {}) },
    {
      caseFile,
      profile,
      planner: 'rules',
      approveMode: 'ask',
      layout,
      plannerInstance: planner,
      listener: { log: (line) => options.log?.push(line) },
      ...options.request,
    },
  );
  const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
  const mismatches = submissions.length === 1 ? compareSubmission(caseFile.fields, submissions[0]!.fields).map((m) => m.field) : [];
  return { ...finished, store, plannerCalls: planner.calls, records: await store.listSteps(finished.runId), submissions: submissions.length, mismatches, clerk: approvals };
}

/** A route store in its own SQLite file for one test file. */
export function routeStore(bench: EngineBench, name = 'routes'): RouteStore & { close(): void; path: string } {
  const path = bench.store(name).path;
  return Object.assign(openRouteStore(path), { path });
}

/** The portal's own option words a run saw (radio labels, list options): a case value that is one of them is the portal's word, not the client's. */
export function portalWords(steps: readonly StepRecord[]): Set<string> {
  const words = new Set<string>();
  const add = (t: string) => words.add(t.trim().toLowerCase());
  for (const s of steps) for (const c of (s.observation as Observation).controls) {
    if (c.role === 'radio') add(c.name);
    for (const o of c.options ?? []) add(o);
  }
  return words;
}

/** The case's values a route must never hold: every text value of 3 characters or more that is not one of the portal's own option words. */
export function clientValues(caseFile: CaseFile, words: ReadonlySet<string>): string[] {
  return Object.values(caseFile.fields)
    .filter((v): v is string => typeof v === 'string' && v.trim().length >= 3 && !words.has(v.trim().toLowerCase()))
    .map((v) => v.trim().toLowerCase());
}
