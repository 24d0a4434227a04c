import { describe, expect, it } from 'vitest';
import { permitCases, runPermits } from '../../lab/eval/suites/permits';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * The fourth lab portal (trade permits: uploads, a calendar date, a three-box date, an autocomplete
 * district, a select2-style ward, div checkboxes, a shadow-DOM address block, an address finder in a
 * frame of a second allowed host, a session-timeout warning, a receipt in a new tab) run end to end by the offline rules
 * planner through the real engine (Chromium, the guard, the commit gate, SQLite), scored from what
 * the portal received. The CI subset per commit; `npm run test:full` (PORTAL_DESK_FULL=1), like
 * `portal-desk eval --suite permits --full`, runs all 20.
 */
describe('trade-permits lab portal, rules planner', () => {
  it('has 20 known-answer cases', () => {
    expect(permitCases(true)).toHaveLength(20);
    expect(permitCases(false)).toHaveLength(4);
  });

  it('completes the CI subset: each form done with the issued number, the portal holding exactly the case, one approval per form', async () => {
    const run = await runPermits({ full: FULL_SWEEPS });
    const forms = FULL_SWEEPS ? 20 : 4;
    for (const result of run.results) expect(result.pass, `${result.id}: ${result.detail}`).toBe(true);
    expect(run.touches).toEqual(Array.from({ length: forms }, () => 1));
    // Code answered the session-timeout warning once per form (the portal counts each "Continue session").
    expect(run.extensions).toBe(forms);
    // The receipt the confirmation opens in a new tab: the tab itself asked the portal for it, code followed it
    // (a tab_followed record with its sha256) and closed it, and the run went on to done in its own page.
    for (const result of run.results) expect([result.id, result.metrics.receipt_tab_requests, result.metrics.receipt_tabs_followed]).toEqual([result.id, 1, 1]);
  }, FULL_SWEEPS ? 3_600_000 : 300_000);
});
