import { describe, expect, it } from 'vitest';
import { faultsSuite } from '../../lab/eval/suites/faults';

/**
 * `portal-desk eval --suite faults` in its CI form: session expiry after every step of every
 * lab flow (in this process); SIGKILL of a real `portal-desk run` at five different steps, each
 * flow at least once, followed by `portal-desk resume`. (`--full` kills at every step too.)
 */
describe('the faults suite (CI subset)', () => {
  it('0 duplicate submissions, 100% completed, 0 lost steps', async () => {
    const lines: string[] = [];
    // Two at a time: it starts beside the lab suite's three, and 2 cores run five forms at once no faster than four.
    const report = await faultsSuite.run({ model: 'rules', full: false, concurrency: 2, log: (l) => lines.push(l) });
    const failed = report.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`);
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ duplicate_submissions: 0, lost_steps: 0, completion_rate: '100%' });

    const at = (portal: string, fault: string) => report.results.filter((r) => r.metrics.portal === portal && r.metrics.fault === fault).map((r) => r.metrics.at as number);
    // Expiry after every step of every flow but the last (after the last there is nothing left to expire).
    for (const portal of ['shops', 'power', 'tax']) {
      const steps = report.results.find((r) => r.id === `baseline:${portal}`)!.metrics.steps as number;
      expect(at(portal, 'expiry').sort((a, b) => a - b), portal).toEqual(Array.from({ length: steps - 1 }, (_, i) => i));
    }
    for (const portal of ['shops', 'power', 'tax']) expect(at(portal, 'sigkill').length, portal).toBeGreaterThanOrEqual(1);
    const killedAt = report.results.filter((r) => r.metrics.fault === 'sigkill').map((r) => r.metrics.at as number);
    expect(new Set(killedAt).size).toBeGreaterThanOrEqual(5);
  }, 3_600_000);
});
