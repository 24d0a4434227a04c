import { describe, expect, it } from 'vitest';
import { expiryGroups, faultsSuite } from '../../lab/eval/suites/faults';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * `portal-desk eval --suite faults` in its CI form: session expiry after every step of every
 * lab flow (in this process), several expiries within a run (up to three: a run signs in at most
 * four times); SIGKILL of a real `portal-desk run` at three different steps, one per flow (the
 * last right after the Submit click), followed by `portal-desk resume`. `npm run test:full` (PORTAL_DESK_FULL=1), like `--full`:
 * one run per expiry, and a kill at every step too.
 */
describe(`the faults suite (${FULL_SWEEPS ? 'full' : 'CI subset'})`, () => {
  it('groups a flow\'s expiries three to a run, every step once, a step whose mark is not unique first in its run', () => {
    const marks = ['sign-in', 'a', 'b', 'c', 'a', 'd', 'e', 'f', 'g', 'h'];
    const groups = expiryGroups([0, 1, 2, 3, 4, 5, 6, 7, 8], marks);
    expect(groups.flat().sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(groups.every((g) => g.length <= 3)).toBe(true);
    expect(groups.filter((g) => g.includes(1) || g.includes(4))).toEqual([[1], [4]]);
    expect(groups.length).toBe(5);
  });

  it('0 duplicate submissions, 100% completed, 0 lost steps', { timeout: FULL_SWEEPS ? 14_400_000 : 3_600_000 }, async () => {
    const lines: string[] = [];
    // Two at a time: it starts beside the lab suite's three, and 2 cores run five forms at once no faster than four.
    const report = await faultsSuite.run({ model: 'rules', full: FULL_SWEEPS, concurrency: 2, log: (l) => lines.push(l) });
    console.log(`faults suite: ${JSON.stringify(report.summary)}`);
    const failed = report.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`);
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ duplicate_submissions: 0, lost_steps: 0, completion_rate: '100%' });

    const at = (portal: string, fault: string) =>
      report.results
        .filter((r) => r.metrics.portal === portal && r.metrics.fault === fault)
        .flatMap((r) => (typeof r.metrics.expired_after === 'string' ? r.metrics.expired_after.split('+').map(Number) : [r.metrics.at as number]));
    // Expiry after every step of every flow but the last (after the last there is nothing left to expire).
    for (const portal of ['shops', 'power', 'tax']) {
      const steps = report.results.find((r) => r.id === `baseline:${portal}`)!.metrics.steps as number;
      expect(at(portal, 'expiry').sort((a, b) => a - b), portal).toEqual(Array.from({ length: steps - 1 }, (_, i) => i));
    }
    for (const portal of ['shops', 'power', 'tax']) {
      expect(at(portal, 'sigkill').length, portal).toBeGreaterThanOrEqual(1);
      // Per commit several expiries share a run: fewer runs than steps, none with more than three.
      const runs = report.results.filter((r) => r.metrics.portal === portal && r.metrics.fault === 'expiry');
      if (!FULL_SWEEPS) expect(runs.length, portal).toBeLessThan(at(portal, 'expiry').length);
      expect(runs.filter((r) => String(r.metrics.expired_after).split('+').length > 3).map((r) => r.id)).toEqual([]);
    }
    const killedAt = report.results.filter((r) => r.metrics.fault === 'sigkill').map((r) => r.metrics.at as number);
    expect(new Set(killedAt).size).toBeGreaterThanOrEqual(FULL_SWEEPS ? 5 : 3);
  });
});
