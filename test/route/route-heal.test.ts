import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBench } from '../support/engine';
import { routeRun, routeStore } from './support';

/**
 * A portal that changes: pages that no longer match the route go to the planner, the run still
 * passes, and the route heals so that the next run needs the planner no more.
 */

let bench: EngineBench;
beforeAll(async () => {
  bench = await new EngineBench().start();
});
afterAll(async () => {
  await bench?.stop();
});

const headingsOf = (h: readonly string[]) => h.join(' / ').toLowerCase().replace(/\d+/g, '#');

describe('a changed portal and a learned route', () => {
  it('redesigned after the route was learned: the changed pages go to the planner, the run passes, the route heals, and the next run asks the planner nothing', async () => {
    const routes = routeStore(bench, 'routes-redesign');
    try {
      const first = bench.caseFile('power-name-change-deshpande.json');
      const learn = await routeRun(bench, first, routes);
      expect(learn.status, learn.reason).toBe('done');
      const original = (await routes.getRoute(first.portal, first.task))!;

      const changed = await routeRun(bench, bench.caseFile('power-name-change-fernandes.json'), routes, { layout: 'redesigned' });
      expect(changed.status, changed.reason).toBe('done');
      expect(changed.submissions).toBe(1);
      expect(changed.mismatches).toEqual([]);
      const planned = changed.records.filter((s) => s.source === 'planner');
      expect(planned.length).toBe(changed.plannerCalls);
      expect(changed.plannerCalls).toBeGreaterThan(0);
      // Every page the planner got is one the route did not know; every page the route knew came from the route.
      const known = new Set(original.steps.map((s) => s.signature.headings.join(' / ')));
      for (const s of planned) expect(known.has(headingsOf(s.observation.headings)), `planner got a page the route knew: ${s.observation.headings[0]}`).toBe(false);
      for (const s of changed.records.filter((x) => x.source === 'route')) expect(known.has(headingsOf(s.observation.headings))).toBe(true);
      expect(['healed', 'learned']).toContain(changed.route?.update.kind);
      const healed = (await routes.getRoute(original.portal, original.task))!;
      expect(healed.version).toBe(original.version + 1);

      const again = await routeRun(bench, bench.caseFile('power-name-change-fernandes.json'), routes, { layout: 'redesigned' });
      expect(again.status, again.reason).toBe('done');
      expect(again.plannerCalls).toBe(0);
      expect(again.submissions).toBe(1);
      expect(again.mismatches).toEqual([]);
      expect(again.route?.update.kind).toBe('confirmed');
    } finally {
      routes.close();
    }
  }, 400_000);
});
