import { describe, expect, it } from 'vitest';
import { designSystemCases, runDesignSystems } from '../../lab/eval/suites/design-systems';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * The design-system lab family (issue 30): three portals built from the published packages' own
 * JavaScript and CSS (USWDS: date picker, combo box, input mask, file input, tiles and a checkbox
 * whose label covers the input; GOV.UK Frontend with accessible-autocomplete: nationality, radios
 * with a conditional reveal, a postcode look-up listing addresses, the error summary; MoJ Frontend:
 * add-another people, its date picker), each case run by the offline rules planner through the real
 * engine (Chromium, the guard, the default-deny commit gate, SQLite) and scored per field from what
 * the portal received.
 */
describe('design-system lab portals, rules planner', () => {
  it('completes one case per portal: done with the issued number, exactly one submission, no wrong value, one approval', async () => {
    // One case of each portal (all 30 run in the full tier, below): the USWDS one gives its phone
    // as "(512) 555-0148", which USWDS's input mask cuts when the text is set whole; typed key by
    // key the mask writes it 512-555-0148, the way its pattern wants.
    const files = designSystemCases().filter((f) => /^ds-(govuk|moj)-01-|^ds-uswds-02-/.test(f));
    expect(files.map((f) => f.split('-')[1])).toEqual(['govuk', 'moj', 'uswds']);
    const results = await runDesignSystems({ only: files, log: (line) => console.log(line) });
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect({ case: r.caseId, status: r.status, reason: r.status === 'done' ? undefined : r.reason }).toEqual({ case: r.caseId, status: 'done', reason: undefined });
      expect([r.caseId, r.submissions, r.wrong, r.approvals, r.questions]).toEqual([r.caseId, 1, [], 1, 0]);
      expect(r.applicationNumber).toMatch(/^(USA|GOV|MOJ)-\d{6}$/);
    }
  }, 180_000);
});

// `npm run test:full`: every known-answer case of the family (10 a portal: phone numbers written
// five ways, contact by email or phone, each postcode's addresses, one to four people).
describe.runIf(FULL_SWEEPS)('design-system lab portals, all cases, rules planner', () => {
  it('completes at least 95% of the cases with the issued number and one submission, and never sends a wrong value', async () => {
    const files = designSystemCases();
    expect(files.length).toBeGreaterThanOrEqual(30);
    const results = await runDesignSystems({ only: files, log: (line) => console.log(line) });
    expect(results.flatMap((r) => r.wrong.map((w) => `${r.caseId}: ${w}`))).toEqual([]);
    expect(results.filter((r) => r.submissions > 1).map((r) => r.caseId)).toEqual([]);
    const done = results.filter((r) => r.status === 'done' && r.submissions === 1 && r.approvals === 1);
    expect(done.length / results.length, results.filter((r) => !done.includes(r)).map((r) => `${r.caseId}: ${r.status} ${r.reason ?? ''}`).join('\n')).toBeGreaterThanOrEqual(0.95);
  }, 1_800_000);
});
