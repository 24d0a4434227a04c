import { afterEach, expect, it } from 'vitest';
import type { Route } from '../../src/shared/route';
import { routesOf } from '../../src/store';
import { RouteStoreError } from '../../src/store/route-store';
import { eachStore, storeTarget, type Backend } from './backends';

function route(overrides: Partial<Route> = {}): Route {
  return {
    portal: 'shops',
    task: 'shop-registration-renewal',
    version: 1,
    status: 'active',
    failures: 0,
    steps: [
      {
        signature: { flowStep: 'step # of #: establishment details', headings: ['establishment details'], controls: [{ role: 'button', name: 'save and continue' }, { role: 'textbox', name: 'business name' }] },
        actions: [
          { type: 'fill', control: { role: 'textbox', name: 'business name', nth: 0, of: 1 }, field: 'business_name' },
          { type: 'click', control: { role: 'button', name: 'save and continue', nth: 0, of: 1 } },
        ],
      },
    ],
    learnedFrom: 'run-1',
    healedSteps: 0,
    createdAt: '2026-12-04T02:00:00.000Z',
    updatedAt: '2026-12-04T02:00:00.000Z',
    ...overrides,
  };
}

const opened: Array<{ close(): void }> = [];

/** The routes of a fresh store of this kind, and raw SQL on its database. */
async function open(kind: Backend) {
  const target = await storeTarget(kind);
  const store = routesOf(await target.open());
  opened.push(store);
  return { store, target };
}

/** The route store (migration 6 on both stores): the same behaviour on a desk's SQLite file and in the office database. */
eachStore('route store', (kind) => {
  afterEach(() => opened.splice(0).forEach((s) => s.close()));

  it('keeps one route per portal and task, replaces it on save, lists and deletes it', async () => {
    const { store } = await open(kind);
    expect(await store.getRoute('shops', 'shop-registration-renewal')).toBeNull();
    await store.saveRoute(route());
    await store.saveRoute(route({ task: 'other-task' }));
    await store.saveRoute(route({ version: 2, learnedFrom: 'run-2', updatedAt: '2026-12-04T03:00:00.000Z' }));
    const got = await store.getRoute('shops', 'shop-registration-renewal');
    expect(got).toMatchObject({ version: 2, learnedFrom: 'run-2', createdAt: '2026-12-04T02:00:00.000Z' });
    expect((await store.listRoutes()).map((r) => `${r.task} v${r.version}`)).toEqual(['other-task v1', 'shop-registration-renewal v2']);
    expect(await store.deleteRoute('shops', 'other-task')).toBe(true);
    expect(await store.deleteRoute('shops', 'other-task')).toBe(false);
    expect((await store.listRoutes()).length).toBe(1);
  });

  it('refuses to save a route that fails the schema (a goto is never part of a route)', async () => {
    const { store } = await open(kind);
    const bad = route();
    (bad.steps[0]!.actions as unknown[]).push({ type: 'goto', url: 'https://evil.example/' });
    await expect(store.saveRoute(bad)).rejects.toThrow();
    expect(await store.getRoute('shops', 'shop-registration-renewal')).toBeNull();
  });

  it('a row edited in the database is refused, not followed: bad JSON, a schema break, a column that disagrees with the JSON', async () => {
    const { store, target } = await open(kind);
    await store.saveRoute(route());
    await target.rows("UPDATE routes SET status = 'retired'");
    await expect(store.getRoute('shops', 'shop-registration-renewal')).rejects.toThrow(/disagrees with its own row/);
    const tampered = route();
    (tampered.steps[0]!.actions as unknown[]).push({ type: 'goto', url: 'https://evil.example/' });
    await target.rows("UPDATE routes SET status = 'active', route_json = ?", JSON.stringify(tampered));
    await expect(store.getRoute('shops', 'shop-registration-renewal')).rejects.toThrow(RouteStoreError);
    await expect(store.getRoute('shops', 'shop-registration-renewal')).rejects.toThrow(/steps\.0\.actions\.2\.type/);
    await target.rows("UPDATE routes SET route_json = '{'");
    await expect(store.getRoute('shops', 'shop-registration-renewal')).rejects.toThrow(/not valid JSON/);
    expect(await store.listRoutes()).toEqual([]);
  });
});
