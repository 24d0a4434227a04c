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
  /** The run is over, however it ended (called after `finish`, or instead of it): runs waiting for the route it learns go on. */
  release(): void;
}

/**
 * Runs of this process learning a route: started with none to follow (none stored, a retired one,
 * or one that could not be read), by route store, portal and task; each resolves once its run is
 * over and its route, if any, saved. A run of the same portal and task that starts meanwhile (a
 * batch starts the next case while the first waits for the clerk at its submission) waits for it,
 * then follows the route it learned on every page, instead of asking the planner for the pages
 * the first run is about to learn and saving a route of its own over the first's.
 */
const learning = new WeakMap<RouteStore, Map<string, Promise<void>>>();

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
  const key = `${context.portal}\u0000${context.task}`;
  const learners = learning.get(routes) ?? new Map<string, Promise<void>>();
  learning.set(routes, learners);
  // One at a time: a run that waited checks again, as another may have started learning meanwhile.
  for (let learner = learners.get(key); learner; learner = learners.get(key)) {
    log?.(`route: waiting for the run of this portal and task that is learning its route, to follow it`);
    await learner;
  }
  let previous: Route | null = null;
  try {
    previous = await routes.getRoute(context.portal, context.task);
  } catch (err) {
    log?.(`route: not followed: ${errorText(err)}`);
  }
  let release = (): void => undefined;
  if (previous?.status !== 'active') {
    const learned = new Promise<void>((resolve) => {
      release = () => {
        release = () => undefined;
        if (learners.get(key) === learned) learners.delete(key);
        resolve();
      };
    });
    learners.set(key, learned);
  }
  if (previous?.status === 'retired') log?.(`route: v${previous.version} is retired (${previous.retiredReason ?? 'failed twice'}); the planner decides every page`);
  else if (previous) log?.(`route: following v${previous.version} (${previous.steps.length} pages) where the pages match; the planner decides the rest`);
  const follower = new RouteFollower(planner, { route: previous, profile: context.profile });
  return {
    planner: follower,
    release: () => release(),
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
      } finally {
        release();
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
  if (options.noRoute) return {};
  // One per store, so runs started apart (the console's own runs, its queue) see each other learning.
  let routes = beside.get(store);
  if (!routes) beside.set(store, (routes = new RoutesBeside(store)));
  return { routes };
}

const beside = new WeakMap<Store, RoutesBeside>();

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
