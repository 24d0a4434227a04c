import { expect, it } from 'vitest';
import type { Route } from '../../src/shared/route';
import type { PgStore } from '../../src/store';
import { RouteStoreError } from '../../src/store/route-store';
import { eachStore, storeTarget } from './backends';

function route(overrides: Partial<Route> = {}): Route {
  return {
    portal: 'shops',
    task: 'shop-registration-renewal',
    version: 1,
    status: 'active',
    failures: 0,
    steps: [
      {
        signature: { flowStep: 'step # of #: establishment details', headings: ['establishment details'], controls: [{ role: 'button', name: 'save and continue' }] },
        actions: [{ type: 'click', control: { role: 'button', name: 'save and continue', nth: 0, of: 1 } }],
      },
    ],
    learnedFrom: 'run-1',
    healedSteps: 0,
    createdAt: '2026-12-04T02:00:00.000Z',
    updatedAt: '2026-12-04T02:00:00.000Z',
    ...overrides,
  };
}

/** The office's routes (PostgreSQL migration 6) behave as the SQLite route store's do (test/store/route-store.test.ts). */
eachStore('office route store', (kind) => {
  it.skipIf(kind === 'sqlite')('keeps one route per portal and task for every desk, and refuses a row edited on one side', async () => {
    const target = await storeTarget(kind);
    const deskA = ((await target.open()) as PgStore).routeStore();
    const deskB = ((await target.open()) as PgStore).routeStore();
    expect(await deskA.getRoute('shops', 'shop-registration-renewal')).toBeNull();
    await deskA.saveRoute(route());
    await deskB.saveRoute(route({ version: 2, learnedFrom: 'run-2', updatedAt: '2026-12-04T03:00:00.000Z' }));
    expect(await deskA.getRoute('shops', 'shop-registration-renewal')).toMatchObject({ version: 2, learnedFrom: 'run-2', createdAt: '2026-12-04T02:00:00.000Z' });
    await deskA.saveRoute(route({ task: 'other-task' }));
    expect((await deskB.listRoutes()).map((r) => `${r.task} v${r.version}`)).toEqual(['other-task v1', 'shop-registration-renewal v2']);
    await target.rows("UPDATE routes SET failures = 1 WHERE task = 'other-task'");
    await expect(deskB.getRoute('shops', 'other-task')).rejects.toThrow(RouteStoreError);
    expect((await deskB.listRoutes()).length).toBe(1);
    expect(await deskA.deleteRoute('shops', 'other-task')).toBe(true);
    expect(await deskA.deleteRoute('shops', 'other-task')).toBe(false);
    await expect(deskA.saveRoute({ ...route(), version: 0 })).rejects.toThrow();
  });
});
