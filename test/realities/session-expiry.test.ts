import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../lab';
import type { StepRecord } from '../../src/shared/run';
import { caseFrom, RealityBench, stepsIntact } from './support';

/**
 * The portal signs the client out mid-form. The run notices the sign-in page, signs in again,
 * reads its progress record and reopens its saved draft: one application, equal to the case.
 */
describe('session expiry mid-form', () => {
  const bench = new RealityBench();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it('expired right after section 3 was continued past: signs in again, continues the saved draft, submits once', async () => {
    const caseFile = caseFrom('shops-renewal-srinivas-iyer.json');
    let expiredAfter: number | null = null;
    const run = await bench.run(caseFile, {
      listener: {
        step: (step: StepRecord) => {
          const movedOn = step.actions.some((a) => a.element?.includes('Save and continue') && a.outcome.status === 'done');
          if (expiredAfter === null && movedOn && step.observation.flowStep?.startsWith('Step 3')) {
            expiredAfter = step.index;
            bench.lab.expireSession(caseFile.clientId);
          }
        },
      },
    });
    expect(expiredAfter).not.toBeNull();
    expect(run.status, run.reason).toBe('done');

    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);

    const steps = await run.store.listSteps(run.runId);
    const after = steps.filter((s) => s.index > expiredAfter!);
    const signIns = steps.filter((s) => s.events.some((e) => e.type === 'sign_in'));
    expect(signIns).toHaveLength(2);
    expect(signIns[1]!.index).toBeGreaterThan(expiredAfter!);
    // After the second sign-in: the saved draft is continued, no new application is started.
    const clicked = after.flatMap((s) => s.actions.filter((a) => a.action.type === 'click' && a.outcome.status === 'done').map((a) => a.element ?? ''));
    expect(clicked.some((e) => /Continue your saved draft/.test(e))).toBe(true);
    expect(clicked.some((e) => /Start a new application/.test(e))).toBe(false);

    const progress = await run.store.getProgress(caseFile.clientId, caseFile.portal, caseFile.task);
    expect(progress?.draftId).toMatch(/^D-\d+$/);
    expect(submissions[0]!.draftId).toBe(progress!.draftId);
    expect(progress?.applicationNumber).toBe(run.applicationNumber);
    expect((await stepsIntact(run.store, run.runId)).ok).toBe(true);

    // The acknowledgement is kept as proof: its hash and size in the step log, its bytes next to the database.
    const receipt = steps.at(-1)!.events.find((e) => e.type === 'receipt' && e.message.includes('sha256'))!;
    const [, sha256, bytes, path] = /sha256 ([0-9a-f]{64}), (\d+) bytes, kept at (\S+)$/.exec(receipt.message)!;
    expect(path).toBe(`${bench.dir}/receipts/${sha256}.html`);
    expect(existsSync(path!)).toBe(true);
    const kept = readFileSync(path!);
    expect(kept.byteLength).toBe(Number(bytes));
    expect(createHash('sha256').update(kept).digest('hex')).toBe(sha256);
    expect(kept.toString('utf8')).toContain(run.applicationNumber!);
  }, 400_000);
});
