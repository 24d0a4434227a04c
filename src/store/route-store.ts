import { PortalDeskError } from '../base/portal-desk-error';
import { Route, type RouteStore } from '../shared/route';
import { openDatabase } from './database';
import type { SqlRunner } from './sql-driver';
import { SqliteDriver } from './sqlite-driver';

/** A stored route that fails its schema or disagrees with its own columns: it is never followed. */
export class RouteStoreError extends PortalDeskError {}

interface RouteRow {
  portal: string;
  task: string;
  version: number;
  status: string;
  failures: number;
  route_json: string;
}

/**
 * Learned routes in the store's `routes` table (migration 6), on either driver: a desk's SQLite
 * file, or the office database (one route per portal and task for every desk). One row per portal
 * and task, the route as JSON (the truth, checked against its schema on every read) beside query
 * copies of its version, status and failure count (checked against the JSON: a row edited on one
 * side is refused, not followed).
 */
export class SqlRouteStore implements RouteStore {
  constructor(private readonly sql: SqlRunner) {}

  async getRoute(portal: string, task: string): Promise<Route | null> {
    const row = await this.sql.get<RouteRow>('SELECT * FROM routes WHERE portal = ? AND task = ?', [portal, task]);
    return row ? parseRow(row) : null;
  }

  async saveRoute(route: Route): Promise<void> {
    const p = Route.parse(route);
    await this.sql.run(
      `INSERT INTO routes (portal, task, version, status, failures, route_json, learned_from, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (portal, task) DO UPDATE SET version = excluded.version, status = excluded.status, failures = excluded.failures,
         route_json = excluded.route_json, learned_from = excluded.learned_from, updated_at = excluded.updated_at`,
      [p.portal, p.task, p.version, p.status, p.failures, JSON.stringify(p), p.learnedFrom, p.createdAt, p.updatedAt],
    );
  }

  /** Every route that parses, by portal and task; a damaged row is skipped here and refused by `getRoute`. */
  async listRoutes(): Promise<Route[]> {
    const routes: Route[] = [];
    for (const row of await this.sql.all<RouteRow>('SELECT * FROM routes ORDER BY portal, task')) {
      try {
        routes.push(parseRow(row));
      } catch {
        // listed by the CLI as damaged through getRoute; never followed
      }
    }
    return routes;
  }

  async deleteRoute(portal: string, task: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM routes WHERE portal = ? AND task = ?', [portal, task])) > 0;
  }

  /** Portal and task of every row, damaged or not (for `routes list`). */
  async keys(): Promise<Array<{ portal: string; task: string }>> {
    return this.sql.all<{ portal: string; task: string }>('SELECT portal, task FROM routes ORDER BY portal, task');
  }
}

function parseRow(row: RouteRow): Route {
  let json: unknown;
  try {
    json = JSON.parse(row.route_json);
  } catch {
    throw new RouteStoreError(`The route for ${row.portal}/${row.task} is not valid JSON; it is not followed. Delete it with "portal-desk routes delete ${row.portal} ${row.task}".`);
  }
  const parsed = Route.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RouteStoreError(
      `The route for ${row.portal}/${row.task} does not match the route schema (${issue ? `${issue.path.join('.') || 'route'}: ${issue.message}` : 'invalid'}); it is not followed. Delete it with "portal-desk routes delete ${row.portal} ${row.task}".`,
    );
  }
  const route = parsed.data;
  if (route.portal !== row.portal || route.task !== row.task || route.version !== row.version || route.status !== row.status || route.failures !== row.failures) {
    throw new RouteStoreError(`The route for ${row.portal}/${row.task} disagrees with its own row (edited on one side); it is not followed.`);
  }
  return route;
}

/** The routes of the SQLite store at `path` (its own connection; the schema is brought up to date like the store's). */
export function openRouteStore(path: string): SqlRouteStore & { close(): void } {
  const driver = new SqliteDriver(openDatabase(path));
  return Object.assign(new SqlRouteStore(driver), { close: () => driver.close() });
}
