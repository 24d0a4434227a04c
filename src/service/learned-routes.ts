import type { Planner } from '../agent/decide/planner';
import { nextRoute, RouteFollower, type RouteUpdate } from '../agent/route';
import { errorText } from '../base/error-text';
import type { PortalProfile } from '../shared/portal-profile';
import type { Route, RouteStore } from '../shared/route';
import type { RunRecorder } from '../shared/recorder';
import type { RunStatus } from '../shared/run';
import { routesOf, type Store } from '../store';

/** What one run did with its learned route, for the summary, the bench and the tests. */
export interface RouteReport {
  /** The route the run found (null: none, or a stored one that could not be read). */
  found: { version: number; status: Route['status']; pages: number } | null;
  /** Turns that came from the route and from the planner. */
  routeTurns: number;
  plannerTurns: number;
  /** Why pages went to the planner while a route was followed, one line each (step index first). */
  fallbacks: string[];
  /** Planner turns that could not become route pages, and why (step index first). */
  notLearned: string[];
  /** What the end of the run did to the route. */
  update: { kind: 'none' | Extract<RouteUpdate, { kind: 'save' }>['what']; line: string; version?: number };
}

interface RouteSession {
  planner: Planner;
  /** After the run: learn, heal, confirm or count a failure; never throws (a route is an optimisation, never the run's outcome). */
  finish(run: { runId: string; status: RunStatus; reason: string }): Promise<RouteReport>;
}

/**
 * Wraps the run's planner in the route follower for this portal and task. A stored route that
 * cannot be read (damaged, tampered, from a newer schema) is not followed: the planner decides
 * every page and the run's log says why; a `done` run then learns a fresh route over it.
 */
export async function openRouteSession(
  routes: RouteStore,
  recorder: RunRecorder,
  planner: Planner,
  context: { profile: PortalProfile; portal: string; task: string; log?: (line: string) => void },
): Promise<RouteSession> {
  const { log } = context;
  let previous: Route | null = null;
  try {
    previous = await routes.getRoute(context.portal, context.task);
  } catch (err) {
    log?.(`route: not followed: ${errorText(err)}`);
  }
  if (previous?.status === 'retired') log?.(`route: v${previous.version} is retired (${previous.retiredReason ?? 'failed twice'}); the planner decides every page`);
  else if (previous) log?.(`route: following v${previous.version} (${previous.steps.length} pages) where the pages match; the planner decides the rest`);
  const follower = new RouteFollower(planner, { route: previous, profile: context.profile });
  return {
    planner: follower,
    async finish(run) {
      const counts = follower.counts;
      const fallbacks = follower.trace.filter((t) => t.why).map((t) => `step ${t.index}: ${t.why}`);
      const report: Omit<RouteReport, 'update'> = {
        found: previous ? { version: previous.version, status: previous.status, pages: previous.steps.length } : null,
        routeTurns: counts.route,
        plannerTurns: counts.planner,
        fallbacks,
        notLearned: follower.trace.filter((t) => t.notLearned).map((t) => `step ${t.index}: ${t.notLearned}`),
      };
      try {
        const steps = await recorder.listSteps(run.runId);
        const update = nextRoute({ ...run, portal: context.portal, task: context.task, steps, previous, trace: follower.trace, now: new Date().toISOString() });
        if (update.kind === 'save') {
          await routes.saveRoute(update.route);
          log?.(`route: ${update.line}`);
          return { ...report, update: { kind: update.what, line: update.line, version: update.route.version } };
        }
        return { ...report, update: { kind: 'none', line: update.why } };
      } catch (err) {
        const line = `the route was not updated: ${errorText(err)}`;
        log?.(`route: ${line}`);
        return { ...report, update: { kind: 'none', line } };
      }
    },
  };
}

/**
 * Whether runs follow and learn routes, and where the routes are kept: the one decision for every
 * way a run starts (`run`, `batch`, `worker`, the console, the lab suite's route variant). On (the
 * default): the routes table of the store the runs are recorded in, a desk's SQLite file or the
 * office's PostgreSQL every desk shares, so a route one run learns is the next run's whichever way
 * that one starts. Off (`--no-route`): none; the planner decides every page and no route changes.
 * A resumed run follows none either way (`executeRun`: its early pages are in an earlier life).
 * Spread into the run's services: `{ store, ..., ...routesFor(store, { noRoute }) }`.
 */
export function routesFor(store: Store, options: { noRoute?: boolean } = {}): { routes?: RouteStore } {
  return options.noRoute ? {} : { routes: new RoutesBeside(store) };
}

/**
 * The routes table beside a run store, opened for each use and let go after it (a desk's SQLite
 * file gives it a connection of its own), so whoever starts runs has nothing more to close.
 */
class RoutesBeside implements RouteStore {
  constructor(private readonly store: Store) {}

  getRoute(portal: string, task: string): Promise<Route | null> {
    return this.use((routes) => routes.getRoute(portal, task));
  }

  saveRoute(route: Route): Promise<void> {
    return this.use((routes) => routes.saveRoute(route));
  }

  listRoutes(): Promise<Route[]> {
    return this.use((routes) => routes.listRoutes());
  }

  deleteRoute(portal: string, task: string): Promise<boolean> {
    return this.use((routes) => routes.deleteRoute(portal, task));
  }

  private async use<T>(work: (routes: RouteStore) => Promise<T>): Promise<T> {
    const routes = routesOf(this.store);
    try {
      return await work(routes);
    } finally {
      routes.close();
    }
  }
}
