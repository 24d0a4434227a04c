import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../src/lab';
import { EngineBench, RecordingApprovals, sampleCases } from '../support/engine';

const bench = new EngineBench();
beforeAll(() => bench.start());
afterAll(() => bench.stop());

describe.each(['original', 'redesigned'] as const)('every sample case on the %s layout (rules planner)', (layout) => {
  it.each(sampleCases())('%s is submitted once, equal to the case, with only the mandatory approval', async (file) => {
    const caseFile = bench.caseFile(file);
    bench.lab.reset();
    const approvals = new RecordingApprovals();
    const result = await bench.run(caseFile, { variant: { layout }, approvals });
    expect(result.reason).toMatch(/^Submitted: application number/);
    expect(result.status).toBe('done');
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.applicationNumber).toBe(result.applicationNumber);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
    expect(bench.lab.resets(caseFile.clientId)).toBe(0);
    // The final submit is the one mandatory approval; nothing else was gated.
    expect(approvals.asked.map((a) => a.element)).toEqual([expect.stringMatching(/submit/i)]);
    expect((await result.store.verifyRun(result.runId)).ok).toBe(true);
  });
});
