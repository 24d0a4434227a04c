import { describe, expect, it } from 'vitest';
import { runRouteVariant } from '../../lab/eval/suites/lab-routes';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * `eval --suite lab`'s route variant with the rules planner, on every lab portal: a case learned on
 * the original layout, the same case followed on it with no planner call, on the layout with one
 * section redrawn with only that page planned, on the redesigned layout with only the pages no
 * earlier run saw planned, then there again with the healed route and no planner call.
 *
 * `npm run test:full` only. Per commit the same five rounds run with the Claude planner on the
 * loopback Messages API (route-variant-claude.test.ts, shops), holding every assertion below; the
 * rules planner learns and follows routes per commit in route-runs.test.ts (shops, tax) and
 * route-roots.test.ts (shops by batch, power by the office worker). Reason: this file added a
 * sixth planner-agnostic pass over the same route code, five whole forms (docs/evaluation.md).
 */
describe.runIf(FULL_SWEEPS)('eval --suite lab, route variant (every lab portal, rules planner)', () => {
  it('follows the learned route with 0 planner calls, and on the redesigned layout plans only the changed pages and still passes, then follows the healed route', { timeout: 3_600_000 }, async () => {
    const log: string[] = [];
    const report = await runRouteVariant({ model: 'rules', full: false, concurrency: 1, log: (line) => log.push(line) });
    console.log(log.filter((l) => /^(PASS|FAIL|route variant)/.test(l)).join('\n'));
    expect(report.results).toHaveLength(3);
    for (const result of report.results) {
      expect(result.pass, `${result.id}: ${result.detail}\n${log.join('\n')}`).toBe(true);
      const m = result.metrics;
      expect(m.follow_planner_calls, result.id).toBe(0);
      expect(m.learn_planner_calls as number, result.id).toBeGreaterThan(4);
      // One section redrawn: it alone went to the planner, the pages before and after it came from the route.
      expect(m.changed_planner_calls as number, result.id).toBeGreaterThan(0);
      expect(m.changed_route_pages as number, result.id).toBeGreaterThan(m.changed_planner_calls as number);
      // The lab's redesign gives every page a new frame: every page is a changed one, and each went to the planner.
      expect(m.redesigned_planner_calls as number, result.id).toBeGreaterThan(0);
      expect(m.redesigned_planner_calls, result.id).toBe(m.redesigned_changed_pages);
      expect(m.healed_planner_calls, result.id).toBe(0);
      expect([m.submissions, m.field_mismatches, m.unapproved_risky], result.id).toEqual([5, 0, 0]);
      expect(m.route_version, result.id).toBe(3);
    }
    expect(report.summary.route_follow_planner_calls).toBe(0);
    expect(report.ok).toBe(true);
  });
});
