import { describe, expect, it } from 'vitest';
import type { PortalId } from '../../lab';
import { CASE_KINDS, caseKinds, knownAnswerProblems, LAB_VARIANTS, labMatrix, labSuite, loadLabCases, QUICK_VARIANTS } from '../../lab/eval/suites/lab';
import type { EvalCaseResult } from '../../lab/eval/suite';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * The lab suite's known-answer cases, and its CI subset run for real: every case once, every
 * variant on several cases, the rules planner, Chromium, the lab and SQLite.
 */

const cases = loadLabCases();
const byPortal = (portal: PortalId) => cases.filter((c) => c.caseFile.portal === portal);
const SAME_AS: Record<PortalId, string> = { shops: 'correspondence_same_as_business', power: 'billing_same_as_supply', tax: 'communication_same_as_establishment' };

describe('the known-answer cases', () => {
  it('are 20 per lab portal, each a valid answer for the portal on both layouts', () => {
    expect(cases).toHaveLength(60);
    for (const portal of ['shops', 'power', 'tax'] as const) expect(byPortal(portal), portal).toHaveLength(20);
    expect(new Set(cases.map((c) => c.caseFile.clientId)).size).toBe(60);
    for (const { caseFile } of cases) {
      expect(knownAnswerProblems(caseFile, 'original'), caseFile.caseId).toEqual([]);
      expect(knownAnswerProblems(caseFile, 'redesigned'), caseFile.caseId).toEqual([]);
    }
  });

  it.each(['shops', 'power', 'tax'] as const)('have the tricky kinds on %s: two addresses, same-as, non-ASCII, optional left empty, at the limit, rejected on the first try', (portal) => {
    const mine = byPortal(portal);
    const count = (kind: (typeof CASE_KINDS)[number]) => mine.filter((c) => caseKinds(c).has(kind)).length;
    for (const kind of ['two_addresses', 'same_as'] as const) expect(count(kind), kind).toBeGreaterThanOrEqual(3);
    expect(count('indic_script')).toBeGreaterThanOrEqual(2);
    expect(count('accented_latin')).toBeGreaterThanOrEqual(1);
    expect(count('optional_empty')).toBeGreaterThanOrEqual(1);
    expect(count('optional_left_out')).toBeGreaterThanOrEqual(1);
    expect(count('at_limit')).toBeGreaterThanOrEqual(2);
    expect(count('rejected_once')).toBeGreaterThanOrEqual(2);
    // The kinds are read from the case, not from its name: a case with none is an ordinary one.
    const sameAs = mine.find((c) => caseKinds(c).has('same_as'))!;
    expect(caseKinds({ ...sameAs, caseFile: { ...sameAs.caseFile, fields: { ...sameAs.caseFile.fields, [SAME_AS[portal]]: false } } }).has('two_addresses')).toBe(true);
  });

  it('make a CI subset of every case once plus the slow page on three, a quick sample holding every kind on every variant but the expiry, and a full matrix of 360', () => {
    const ci = labMatrix(cases, 'ci');
    expect(ci).toHaveLength(63);
    expect(new Set(ci.map((r) => r.case.caseFile.caseId)).size).toBe(60);
    const perVariant = Object.keys(LAB_VARIANTS).map((v) => ci.filter((r) => r.variant === v).length);
    expect(perVariant.every((n) => n >= 3)).toBe(true);
    expect(labMatrix(cases, 'full')).toHaveLength(360);

    const quick = labMatrix(cases, 'quick');
    expect(quick.length).toBeLessThanOrEqual(18);
    // The session expiry is the faults suite's, after every step of every flow (test/realities/faults-suite.test.ts).
    expect(QUICK_VARIANTS).toEqual(Object.keys(LAB_VARIANTS).filter((v) => v !== 'session_expiry'));
    for (const portal of ['shops', 'power', 'tax'] as const) {
      const mine = quick.filter((r) => r.case.caseFile.portal === portal);
      expect(new Set(mine.map((r) => r.case.caseFile.caseId)).size, portal).toBe(mine.length);
      expect(new Set(mine.map((r) => r.variant)), portal).toEqual(new Set(QUICK_VARIANTS));
      const held = new Set(mine.flatMap((r) => [...caseKinds(r.case)]));
      expect([...held].sort(), portal).toEqual([...CASE_KINDS].sort());
    }
  });
});

// Per commit the quick sample; `npm run test:full` (PORTAL_DESK_FULL=1) the full matrix: 360 runs and the 20 permits cases.
describe(`eval --suite lab ${FULL_SWEEPS ? '--full' : '--quick'} (rules planner)`, () => {
  it('completes every run, submitting each form exactly once with only the final approval', { timeout: FULL_SWEEPS ? 14_400_000 : 1_200_000, retry: 0 }, async () => {
    const log: string[] = [];
    // Three at a time: a run waits on settle windows and page loads for part of its time. The quick
    // sample (every kind on every variant of every portal); `eval --suite lab` runs the 63 of the CI
    // subset and `--full` the 360 (docs/evaluation.md).
    const report = await labSuite.run({ model: 'rules', full: FULL_SWEEPS, quick: !FULL_SWEEPS, concurrency: 3, log: (line) => log.push(line) });
    const failed = report.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`);
    expect(failed, log.join('\n')).toEqual([]);
    // The sample's lab runs; the full matrix adds the 20 trade-permits cases (lab/permits), whose CI subset
    // test/lab/permits-portal.test.ts runs on every commit.
    const sample = labMatrix(cases, FULL_SWEEPS ? 'full' : 'quick');
    const permits = report.results.filter((r) => r.metrics.portal === 'permits').map((r) => r.id);
    expect(report.results).toHaveLength(sample.length + permits.length);
    if (FULL_SWEEPS) expect(permits).toHaveLength(20);
    else expect(permits).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.completion_rate).toBe('100%');
    for (const variant of FULL_SWEEPS ? Object.keys(LAB_VARIANTS) : QUICK_VARIANTS) expect(report.summary[`completion_${variant}`], variant).toMatch(/^100% of \d+$/);
    const m = (r: EvalCaseResult, key: string) => r.metrics[key];
    // Exactly once, as the lab recorded it; nothing risky landed beyond what the clerk approved.
    expect(report.results.filter((r) => m(r, 'submissions') !== 1).map((r) => r.id)).toEqual([]);
    expect(report.results.filter((r) => m(r, 'unapproved_risky') !== 0 || m(r, 'resets') !== 0).map((r) => r.id)).toEqual([]);
    // The one mandatory touch: the clerk approves the final submit; no question was asked.
    expect(report.results.filter((r) => m(r, 'approvals_asked') !== 1 || m(r, 'questions_asked') !== 0).map((r) => r.id)).toEqual([]);
    expect(report.summary.median_touches).toBe(1);
    expect(report.summary.duplicate_submissions).toBe(0);
    // The register look-up really failed first for the cases that ask for it, and the run got past it.
    const rejected = new Set(sample.filter((r) => r.case.setup.rejectFieldOnce).map((r) => r.case.caseFile.caseId));
    const rejectedRuns = report.results.filter((r) => rejected.has(r.id.split(':')[1]!));
    expect(rejectedRuns.length).toBeGreaterThanOrEqual(3);
    // One run a case in the quick sample; the full matrix runs each on every variant.
    expect(rejectedRuns).toHaveLength(sample.filter((r) => r.case.setup.rejectFieldOnce).length);
    expect(rejectedRuns.filter((r) => (m(r, 'pages_with_errors') as number) < 1).map((r) => r.id)).toEqual([]);
    // The rules planner is not a model: no calls, no tokens.
    expect([report.summary.model_calls, report.summary.tokens_in, report.summary.tokens_out]).toEqual([0, 0, 0]);
  });
});

// The lab over https (issue 26): the quick sample with every portal page, form post and submission over TLS, the
// browser trusting the lab's own certificate authority. Full sweeps only: per commit, test/lab/https-lab.test.ts runs
// a form over https and the https-only routes (a worker's POST, a beacon) into the egress lock; `eval --suite lab
// --https` runs the CI subset (63 runs) for a release.
describe.skipIf(!FULL_SWEEPS)('eval --suite lab --quick --https (rules planner)', () => {
  it('completes every run over https, each form submitted once with only the final approval', { timeout: 1_800_000, retry: 0 }, async () => {
    const log: string[] = [];
    const report = await labSuite.run({ model: 'rules', full: false, quick: true, https: true, concurrency: 3, log: (line) => log.push(line) });
    expect(report.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`), log.join('\n')).toEqual([]);
    expect(report.results).toHaveLength(labMatrix(cases, 'quick').length);
    // Every page of every run came over https (the scheme of each page its steps read).
    expect(report.results.filter((r) => r.metrics.schemes !== 'https').map((r) => `${r.id}: ${String(r.metrics.schemes)}`)).toEqual([]);
    expect(report.results.filter((r) => r.metrics.submissions !== 1 || r.metrics.approvals_asked !== 1).map((r) => r.id)).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
