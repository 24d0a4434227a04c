import { describe, expect, it } from 'vitest';
import { faultsSuite } from '../../lab/eval/suites/faults';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * `portal-desk eval --suite faults` in its CI form: for each lab flow ONE run (in this process)
 * whose session the portal ends after every step that did something new (its sign-in limit
 * raised for it, RunLimits.maxSignIns); SIGKILL of a real `portal-desk run` mid-form on the power
 * flow, followed by `portal-desk resume` (the tax flow killed mid-form and the shops flow killed
 * right after the Submit click are test/realities/resume.test.ts); the permits portal's outage once,
 * mid-flow. `npm run test:full` (PORTAL_DESK_FULL=1), like `--full`: a fault-free run of each
 * flow, one run per expiry, and a kill at every step too.
 */
describe(`the faults suite (${FULL_SWEEPS ? 'full' : 'CI subset'})`, () => {
  it('0 duplicate submissions, 100% completed, 0 lost steps', { timeout: FULL_SWEEPS ? 14_400_000 : 3_600_000 }, async () => {
    const lines: string[] = [];
    // Two at a time: it starts beside the lab suite's three, and 2 cores run five forms at once no faster than four.
    const report = await faultsSuite.run({ model: 'rules', full: FULL_SWEEPS, concurrency: 2, log: (l) => lines.push(l) });
    console.log(`faults suite: ${JSON.stringify(report.summary)}`);
    const failed = report.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`);
    expect(failed, lines.join('\n')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ duplicate_submissions: 0, lost_steps: 0, completion_rate: '100%' });

    const of = (portal: string, fault: string) => report.results.filter((r) => r.metrics.portal === portal && r.metrics.fault === fault);
    for (const portal of ['shops', 'power', 'tax']) {
      const expiries = of(portal, 'expiry');
      if (FULL_SWEEPS) {
        // One run per step of the fault-free run but the last (after the last there is nothing left to expire).
        const steps = report.results.find((r) => r.id === `baseline:${portal}`)!.metrics.steps as number;
        expect(expiries.map((r) => r.metrics.at as number).sort((a, b) => a - b), portal).toEqual(Array.from({ length: steps - 1 }, (_, i) => i));
        expect(of(portal, 'sigkill').map((r) => r.metrics.at as number).sort((a, b) => a - b), portal).toEqual(Array.from({ length: steps - 1 }, (_, i) => i));
      } else {
        // One run, the session ended after every new step up to the confirmation: sign-in, the dashboard,
        // each section's save and continue, the Submit click (11 steps without faults), and the lab really
        // ended it: the run met the sign-in page and signed in again within two steps of every expiry.
        expect(expiries, portal).toHaveLength(1);
        const [run] = expiries;
        expect(run!.metrics.expiries as number, portal).toBeGreaterThanOrEqual(10);
        expect(run!.metrics.expired_after_submit, portal).toBe(true);
        expect(run!.metrics.expiries_without_sign_in, portal).toBe(0);
        // Two expiries in a row (the step after one still acts on the page it had) share one sign-in.
        expect(run!.metrics.sign_ins as number, portal).toBeGreaterThan(1);
        // No fault-free run: the expiry run's own completion is the proof.
        expect(report.results.filter((r) => r.metrics.fault === 'none').map((r) => r.id)).toEqual([]);
      }
    }
    if (!FULL_SWEEPS) {
      expect(report.results.filter((r) => r.metrics.fault === 'sigkill').map((r) => r.id)).toEqual(['sigkill:power@6']);
      expect(report.results.filter((r) => r.metrics.fault === 'outage').map((r) => r.id)).toEqual(['outage:permits@submit']);
      // The outage met the approved submission itself (its row fails otherwise): the portal answered it 503 and filed nothing.
      expect(report.results.find((r) => r.id === 'outage:permits@submit')!.metrics.outage_first).toBe('POST /apply/submit');
    }
  });
});
