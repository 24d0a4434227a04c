import type { RouteStore } from '../shared/route';
import { PgStore } from './pg-store';
import { openRouteStore } from './route-store';
import { SqliteStore } from './store';
import type { Store } from './store-api';

/**
 * The learned routes kept beside a run store: the office store's routes table (shared by every
 * desk) for PostgreSQL, the SQLite file's own for a desk store (on the store's own connection and
 * queue); another kind of store opens the file on a connection of its own, closed with `close`.
 */
export function routesOf(store: Store): RouteStore & { close(): void } {
  if (store instanceof PgStore || store instanceof SqliteStore) {
    return Object.assign(store.routeStore(), { close: () => undefined });
  }
  return openRouteStore(store.path);
}
