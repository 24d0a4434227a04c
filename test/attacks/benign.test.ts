import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../lab';
import { EngineBench, RecordingApprovals } from '../support/engine';

/**
 * The other half of the guard's promise: with the attack lab in place, ordinary lab cases still
 * go through with only the mandatory approval (the final submit), one case per portal.
 */

const bench = new EngineBench();
beforeAll(() => bench.start());
afterAll(() => bench.stop());

const CASES = ['shops-renewal-anand-bakery.json', 'power-name-change-deshpande.json', 'tax-return-deccan-software-aug-2026.json'];

describe('benign lab cases with the rules planner', () => {
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
