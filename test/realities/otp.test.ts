import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../lab';
import type { RunStatus } from '../../src/shared/run';
import { FULL_SWEEPS } from '../support/tiers';
import { caseFrom, occurrences, RealityBench, ScriptedInputs, stepsIntact } from './support';

/**
 * One-time codes: the run waits in awaiting_input (kind otp), the clerk's code is typed by code,
 * the step log shows it masked, and it never reaches the model or the store. Full sweeps only
 * (issue 27): per commit, test/realities/secrets-scan.test.ts checks the same on its two code runs
 * (at sign-in on the tax portal with the Claude planner, before submit on shops, through the CLI and `--otp-command`).
 */
describe.skipIf(!FULL_SWEEPS)('one-time codes at sign-in and before submit', () => {
  const bench = new RealityBench();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it.each([
    ['signin', 'power-name-change-deshpande.json'],
    ['submit', 'tax-return-patel-pharma-oct-2026.json'],
  ] as const)('otp=%s: waits for the clerk, types the code, submits once', async (otp, file) => {
    const caseFile = caseFrom(file);
    const codes: string[] = [];
    const inputs = new ScriptedInputs((req) => {
      if (req.kind !== 'otp') return null;
      const code = bench.lab.latestOtp(caseFile.clientId)!;
      codes.push(code);
      return code;
    });
    const statuses: { status: RunStatus; reason?: string }[] = [];
    const lines: string[] = [];
    const run = await bench.run(caseFile, {
      variant: { otp },
      inputs,
      listener: { status: (status, reason) => statuses.push({ status, reason }), log: (l) => lines.push(l) },
    });

    expect(run.status, run.reason).toBe('done');
    expect(inputs.asked.map((a) => [a.kind, a.field])).toEqual([['otp', null]]);
    expect(codes[0]).toMatch(/^\d{6}$/);
    expect(statuses).toContainEqual({ status: 'awaiting_input', reason: 'Waiting for you: type the one-time code' });

    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
    expect(run.applicationNumber).toBe(submissions[0]!.applicationNumber);

    const steps = await run.store.listSteps(run.runId);
    const otpStep = steps.find((s) => s.events.some((e) => e.type === 'otp'))!;
    expect(otpStep.model).toBeNull();
    expect(otpStep.events.find((e) => e.type === 'otp')!.message).toMatch(/The clerk gave the one-time code •{4,}; code typed it into the portal/);
    // Where the code was asked: at sign-in it comes before the form, before submit after the Submit click.
    const submitStep = steps.findIndex((s) => s.actions.some((a) => a.element?.includes('Submit application')));
    expect(otp === 'signin' ? steps.indexOf(otpStep) < submitStep : steps.indexOf(otpStep) > submitStep).toBe(true);

    const exported = JSON.stringify(await run.store.exportRun(run.runId));
    expect(occurrences(exported, codes[0]!)).toBe(0);
    expect(occurrences(lines.join('\n'), codes[0]!)).toBe(0);
    expect((await stepsIntact(run.store, run.runId)).ok).toBe(true);
  }, 400_000);
});
