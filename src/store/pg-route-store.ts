import type pg from 'pg';
import { Route, type RouteStore } from '../shared/route';
import { parseRow, type RouteRow } from './route-store';

/**
 * Learned routes in the office store's `routes` table (PostgreSQL migration 6), as
 * `SqliteRouteStore` keeps them: the JSON is the truth, checked against its schema and its own
 * query columns on every read, so a row edited on one side is refused, never followed. One
 * route per portal and task serves every desk of the office.
 */
export class PgRouteStore implements RouteStore {
  constructor(private readonly pool: pg.Pool) {}

  async getRoute(portal: string, task: string): Promise<Route | null> {
    const r = await this.pool.query<RouteRow>('SELECT * FROM routes WHERE portal = $1 AND task = $2', [portal, task]);
    return r.rows[0] ? parseRow(r.rows[0]) : null;
  }

  async saveRoute(route: Route): Promise<void> {
    const p = Route.parse(route);
    await this.pool.query(
      `INSERT INTO routes (portal, task, version, status, failures, route_json, learned_from, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (portal, task) DO UPDATE SET version = excluded.version, status = excluded.status, failures = excluded.failures,
         route_json = excluded.route_json, learned_from = excluded.learned_from, updated_at = excluded.updated_at`,
      [p.portal, p.task, p.version, p.status, p.failures, JSON.stringify(p), p.learnedFrom, p.createdAt, p.updatedAt],
    );
  }

  /** Every route that parses, by portal and task; a damaged row is skipped here and refused by `getRoute`. */
  async listRoutes(): Promise<Route[]> {
    const r = await this.pool.query<RouteRow>('SELECT * FROM routes ORDER BY portal, task');
    const routes: Route[] = [];
    for (const row of r.rows) {
      try {
        routes.push(parseRow(row));
      } catch {
        // refused by getRoute; never followed
      }
    }
    return routes;
  }

  async deleteRoute(portal: string, task: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM routes WHERE portal = $1 AND task = $2', [portal, task])).rowCount ?? 0) > 0;
  }

  async keys(): Promise<Array<{ portal: string; task: string }>> {
    return (await this.pool.query<{ portal: string; task: string }>('SELECT portal, task FROM routes ORDER BY portal, task')).rows;
  }
}
