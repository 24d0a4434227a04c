import { digest } from '../../base/canonical-json';
import { ROUTE_FAILURES_TO_RETIRE, type Route, type RouteStep } from '../../shared/route';
import type { RunStatus, StepRecord } from '../../shared/run';
import type { RouteTraceEntry } from './route-follower';

export interface RunEnding {
  runId: string;
  portal: string;
  task: string;
  status: RunStatus;
  reason: string;
  /** The run's step log (the loop's records, with each action's verdict and outcome). */
  steps: readonly StepRecord[];
  /** The route the run started with (followed, or retired and not followed), or null. */
  previous: Route | null;
  trace: readonly RouteTraceEntry[];
  now: string;
}

export type RouteUpdate =
  | { kind: 'none'; why: string }
  | { kind: 'save'; route: Route; what: 'learned' | 'healed' | 'confirmed' | 'failed' | 'retired'; line: string };

/** A denial, a clerk who did not answer or a bot check ends a run for reasons that are not the route's. */
const NOT_THE_ROUTE = /^(Denied by|The clerk|bot_challenge)/;

/**
 * What a finished run does to its route. A run that ended `done` with a verified `done` of its own:
 * the route becomes this run's path, each page kept only when it was verified on the live page
 * (every action of its turn completed and, for a page the planner handled, the next read showed no
 * error); route pages the run followed stay as they were, pages the planner handled are merged in
 * (healed). A run that
 * followed the route and failed counts a failure; two in a row retire it.
 */
export function nextRoute(end: RunEnding): RouteUpdate {
  const previous = end.previous;
  const followed = end.trace.some((t) => t.source === 'route');
  if (end.status !== 'done') {
    if (!previous || previous.status !== 'active' || !followed) return { kind: 'none', why: 'the run did not end done' };
    if (end.status !== 'failed' && end.status !== 'blocked') return { kind: 'none', why: `the run is ${end.status}` };
    if (NOT_THE_ROUTE.test(end.reason)) return { kind: 'none', why: 'the run ended for a reason that is not the route’s' };
    const failures = previous.failures + 1;
    const retire = failures >= ROUTE_FAILURES_TO_RETIRE;
    const route: Route = {
      ...previous,
      failures,
      status: retire ? 'retired' : 'active',
      updatedAt: end.now,
      ...(retire ? { retiredReason: `${failures} runs in a row that followed it did not end done; the last: ${end.reason}`.slice(0, 500) } : {}),
    };
    return {
      kind: 'save',
      route,
      what: retire ? 'retired' : 'failed',
      line: retire ? `route retired after ${failures} failed runs in a row; the next run asks the planner and learns again` : `route failure ${failures} of ${ROUTE_FAILURES_TO_RETIRE} before it is retired`,
    };
  }

  const byIndex = new Map(end.steps.map((s) => [s.index, s]));
  const sorted = [...end.steps].sort((a, b) => a.index - b.index);
  const nextRead = (index: number) => sorted.find((s) => s.index > index);
  const kept: RouteStep[] = [];
  let healed = 0;
  let lastRouteStep = -1;
  let provedDone = false;
  for (const entry of [...end.trace].sort((a, b) => a.index - b.index)) {
    const record = byIndex.get(entry.index);
    if (!entry.step || !record || record.actions.length === 0) continue;
    const completed = record.actions.every((a) => a.outcome.status === 'done' && a.verdict.verdict !== 'block');
    const after = nextRead(entry.index);
    // A planner's page is kept when the portal took it (the next read shows no error); a route page was verified so when it was learned.
    if (!completed || (entry.source === 'planner' && after && after.observation.errors.length > 0)) continue;
    if (record.actions.some((a) => a.action.type === 'done')) provedDone = true;
    if (entry.source === 'route') {
      if (entry.routeStep === lastRouteStep) continue; // a step cut at the action cap, read twice
      lastRouteStep = entry.routeStep ?? -1;
    } else if (previous) {
      healed += 1;
    }
    kept.push(entry.step);
  }
  if (!provedDone) return { kind: 'none', why: 'no verified done step of this run (an earlier submission, or a resumed run): the route is left as it was' };
  if (kept.length === 0) return { kind: 'none', why: 'nothing of the run could be learned' };

  const same = previous !== null && digest(previous.steps) === digest(kept);
  if (same && previous) {
    return { kind: 'save', route: { ...previous, status: 'active', failures: 0, updatedAt: end.now }, what: 'confirmed', line: `route v${previous.version} followed to the end; kept as it is` };
  }
  const route: Route = {
    portal: end.portal,
    task: end.task,
    version: previous ? previous.version + 1 : 1,
    status: 'active',
    failures: 0,
    steps: kept,
    learnedFrom: end.runId,
    healedSteps: previous && previous.status === 'active' && followed ? healed : 0,
    createdAt: previous?.createdAt ?? end.now,
    updatedAt: end.now,
  };
  const what = previous && previous.status === 'active' && followed ? 'healed' : 'learned';
  const line =
    what === 'healed'
      ? `route healed: v${route.version}, ${healed} page(s) from the planner merged in, each verified on the live page`
      : `route learned: v${route.version}, ${kept.length} page(s) of this run, each verified on the live page`;
  return { kind: 'save', route, what, line };
}
