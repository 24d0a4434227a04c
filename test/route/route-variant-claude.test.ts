import { describe, expect, it } from 'vitest';
import { runRouteVariant } from '../../lab/eval/suites/lab-routes';

/**
 * The CI subset of `eval --suite routes --model loopback-claude`, on one portal: the product's
 * Claude planner and the real SDK against the lab's loopback Messages API (which answers at once).
 * The first run pays Messages API requests and tokens on every page; the run that follows the
 * route it learned sends none; with one page changed only that page goes to the model; on the
 * redesigned layout every page is new and goes to the model; once healed, none does.
 *
 * The route variant per commit: these five rounds hold what the rules planner's pass on every
 * portal (route-variant.test.ts, `npm run test:full`) holds, on the planner a clerk's runs use.
 */
describe('eval --suite routes, Claude planner on the loopback Messages API (shops portal)', () => {
  it('a route run sends no request and no token where the first run sent one a page, and a changed page alone goes back to the model', { timeout: 900_000 }, async () => {
    const log: string[] = [];
    const report = await runRouteVariant({ model: 'loopback-claude', full: false, concurrency: 1, log: (line) => log.push(line), portals: ['shops'] });
    console.log(log.filter((l) => /^(PASS|FAIL|route variant)/.test(l)).join('\n'));
    expect(report.results).toHaveLength(1);
    const [result] = report.results;
    expect(result!.pass, `${result!.detail}\n${log.join('\n')}`).toBe(true);
    const m = result!.metrics;
    expect(m.learn_model_calls as number).toBeGreaterThan(4);
    expect(m.learn_model_calls).toBe(m.learn_planner_calls);
    expect(m.learn_tokens as number).toBeGreaterThan(10_000);
    expect([m.follow_planner_calls, m.follow_model_calls, m.follow_tokens]).toEqual([0, 0, 0]);
    expect(m.changed_planner_calls as number).toBeGreaterThan(0);
    expect(m.changed_route_pages as number).toBeGreaterThan(m.changed_planner_calls as number);
    // The lab's redesign gives every page a new frame: every page is a changed one, and each went to the model.
    expect(m.redesigned_planner_calls as number).toBeGreaterThan(0);
    expect(m.redesigned_planner_calls).toBe(m.redesigned_changed_pages);
    // Healed by the changed and redesigned runs (v1 learned, v2 and v3 healed): the last run asks nothing.
    expect(m.healed_planner_calls).toBe(0);
    expect(m.route_version).toBe(3);
    expect([m.submissions, m.field_mismatches, m.unapproved_risky]).toEqual([5, 0, 0]);
    expect(report.summary.route_follow_planner_calls).toBe(0);
    expect(report.ok).toBe(true);
  });
});
