import { describe, expect, it } from 'vitest';
import { designSystemCases, runDesignSystems } from '../../lab/eval/suites/design-systems';

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
    // The first case of each portal (the others run with the suite's full sweep).
    const files = designSystemCases().filter((f) => /^ds-[a-z]+-01-/.test(f));
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
