import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBench, RecordingApprovals } from '../support/engine';
import { clientValues, portalWords, routeRun, routeStore } from './support';

/**
 * Learned routes on every lab portal, two clients each: the route one client's run learns takes
 * the other client's case through the portal with no planner call, through the guard and the
 * clerk's approval of the submit, to exactly one submission holding the second client's values;
 * and the route holds no value of either client.
 */

const PAIRS = [
  ['shops-renewal-anand-bakery.json', 'shops-renewal-meera-kulkarni.json'],
  ['power-name-change-deshpande.json', 'power-name-change-fernandes.json'],
  ['tax-return-deccan-software-aug-2026.json', 'tax-return-kaveri-logistics-nov-2026.json'],
] as const;

let bench: EngineBench;
beforeAll(async () => {
  bench = await new EngineBench().start();
});
afterAll(async () => {
  await bench?.stop();
});

describe.each(PAIRS)('a route learned from %s runs %s', (first, second) => {
  it('with 0 planner calls, one approved submission matching the case, and no case value in the route', async () => {
    const routes = routeStore(bench, `routes-${first}`);
    try {
      const a = bench.caseFile(first);
      const b = bench.caseFile(second);
      const learn = await routeRun(bench, a, routes);
      expect(learn.status, learn.reason).toBe('done');
      expect(learn.route?.update.kind).toBe('learned');
      expect(learn.plannerCalls).toBeGreaterThan(0);
      const learned = await routes.getRoute(a.portal, a.task);
      expect(learned?.steps.length).toBe(learn.plannerCalls);

      const json = JSON.stringify(learned).toLowerCase();
      const valuesOfA = clientValues(a, portalWords(learn.records));
      expect(valuesOfA.length).toBeGreaterThan(8);
      for (const value of valuesOfA) expect(json, `route holds "${value}" of ${a.clientId}`).not.toContain(value);

      const approvals = new RecordingApprovals();
      const follow = await routeRun(bench, b, routes, { approvals });
      expect(follow.status, follow.reason).toBe('done');
      expect(follow.plannerCalls).toBe(0);
      expect(follow.route).toMatchObject({ routeTurns: learned!.steps.length, plannerTurns: 0, fallbacks: [] });
      expect(follow.submissions).toBe(1);
      expect(follow.mismatches).toEqual([]);
      // The submit the route clicked was the guard's to judge and the clerk's to approve, like a planner's.
      expect(approvals.asked.map((q) => q.verdict.rule)).toContain('risky-control');
      // The step log says which turns came from the route: all of this run's, none of the first.
      expect(follow.records.filter((s) => s.source === 'route').length).toBe(learned!.steps.length);
      expect(follow.records.filter((s) => s.source === 'planner').length).toBe(0);
      expect(learn.records.filter((s) => s.source === 'planner').length).toBe(learn.plannerCalls);

      const after = JSON.stringify(await routes.getRoute(a.portal, a.task)).toLowerCase();
      for (const value of [...valuesOfA, ...clientValues(b, portalWords(follow.records))]) expect(after, `route holds "${value}"`).not.toContain(value);
    } finally {
      routes.close();
    }
  }, 300_000);
});
