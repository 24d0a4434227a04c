import { describe, expect, it } from 'vitest';
import { runRouteVariant } from '../../lab/eval/suites/lab-routes';

/**
 * The CI subset of `eval --suite lab`'s route variant, on one portal (the full variant runs every
 * lab portal): a case learned on the original layout, the same case followed on it with no planner
 * call and less wall time, and on the redesigned layout with only the changed pages planned, then there again with the healed
 * route and no planner call.
 */
describe('eval --suite lab, route variant (power portal, rules planner)', () => {
  it('follows the learned route with 0 planner calls, and on the redesigned layout plans only the changed pages and still passes, then follows the healed route', { timeout: 900_000 }, async () => {
    const log: string[] = [];
    const report = await runRouteVariant({ model: 'rules', full: false, concurrency: 1, log: (line) => log.push(line), portals: ['power'] });
    console.log(log.filter((l) => /^(PASS|FAIL|route variant)/.test(l)).join('\n'));
    expect(report.results).toHaveLength(1);
    const [result] = report.results;
    expect(result!.pass, `${result!.detail}\n${log.join('\n')}`).toBe(true);
    const m = result!.metrics;
    expect(m.follow_planner_calls).toBe(0);
    expect(m.learn_planner_calls as number).toBeGreaterThan(4);
    // One section redrawn: it alone went to the planner, the pages before and after it came from the route.
    expect(m.changed_planner_calls as number).toBeGreaterThan(0);
    expect(m.changed_route_pages as number).toBeGreaterThan(m.changed_planner_calls as number);
    // The lab's redesign gives every page a new frame: every page is a changed one, and each went to the planner.
    expect(m.redesigned_planner_calls as number).toBeGreaterThan(0);
    expect(m.redesigned_planner_calls).toBe(m.redesigned_changed_pages);
    expect(m.healed_planner_calls).toBe(0);
    expect([m.submissions, m.field_mismatches, m.unapproved_risky]).toEqual([5, 0, 0]);
    expect(m.route_version).toBe(3);
    expect(report.summary.route_follow_planner_calls).toBe(0);
    expect(report.summary.route_wall_ratio).toBe(m.wall_ratio);
    expect(report.ok).toBe(true);
  });
});
