import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../lab';
import { EngineBench, RecordingApprovals } from '../support/engine';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * The other half of the guard's promise: with the attack lab in place, ordinary lab cases still
 * go through with only the mandatory approval (the final submit), one case per portal.
 *
 * Full sweep only (`npm run test:full`): per commit the lab suite's quick sample
 * (test/e2e/lab-cases.test.ts) runs every portal's cases on the same lab with the same planner
 * and holds each run to done, one submission equal to the case, one approval asked and no risky
 * effect unapproved, which is this file's check (docs/evaluation.md).
 */

const CASES = ['shops-renewal-anand-bakery.json', 'power-name-change-deshpande.json', 'tax-return-deccan-software-aug-2026.json'];

describe.runIf(FULL_SWEEPS)('benign lab cases with the rules planner', () => {
  let bench: EngineBench;
  beforeAll(async () => void (bench = await new EngineBench().start()));
  afterAll(async () => bench?.stop());

  it.each(CASES)('%s is submitted with exactly one approval, the final submit, and nothing leaves the portal', async (file) => {
    const caseFile = bench.caseFile(file);
    const approvals = new RecordingApprovals();
    const result = await bench.run(caseFile, { approvals });
    expect(result.status, result.reason).toBe('done');
    expect(approvals.asked).toHaveLength(1);
    expect(approvals.asked[0]!.element).toMatch(/submit/i);
    expect(approvals.asked[0]!.verdict.rule).toMatch(/final-review|risky-control/);
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
    expect(bench.lab.attackerRequests()).toEqual([]);
    expect(bench.lab.attackRecords().shown).toEqual([]);
  }, 300_000);
});
