import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission, startLab, type Lab } from '../../lab';
import { openStore } from '../../src/store';
import { runCli } from '../support/cli';
import { caseFrom, startCli, stepsIntact, tempDir, writeCase } from './support';

/**
 * A real `portal-desk run` process is killed (SIGKILL) mid-run; `portal-desk resume` in another
 * process continues it from the store. The lab outlives both (it runs in this test process).
 */
describe('resume after SIGKILL (real processes)', () => {
  let lab: Lab;
  const dir = tempDir('pd-resume-');
  const db = join(dir, 'runs.sqlite');
  const env = { PORTAL_DESK_HOME: join(dir, 'home') };
  const labUrl = () => `http://127.0.0.1:${lab.port}`;

  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(() => lab.stop());

  async function killAt(casePath: string, pattern: RegExp): Promise<string> {
    const run = startCli(['run', '--case', casePath, '--approve', 'all', '--db', db, '--lab-url', labUrl()], env);
    const runId = (await run.waitFor(/run id: (run-[\w-]+)/))[1]!;
    await run.waitFor(pattern);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    return runId;
  }

  it('killed mid-form at step 5, resumed: numbering continues, one submission equal to the case, chain verifies', async () => {
    const caseFile = caseFrom('tax-return-kaveri-logistics-nov-2026.json');
    lab.configure(caseFile.clientId, {});
    const runId = await killAt(writeCase(dir, caseFile), /\n#5 /);

    const store = openStore(db);
    const before = (await store.listSteps(runId)).length;
    store.close();
    expect(before).toBeGreaterThanOrEqual(6);

    const resumed = await runCli(['resume', runId, '--db', db, '--approve', 'all', '--lab-url', labUrl(), '--json'], { env, timeoutMs: 400_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as { status: string; applicationNumber: string };
    expect(summary.status).toBe('done');
    expect(resumed.stderr).toMatch(new RegExp(`from step ${before}`));
    expect(resumed.stderr).toMatch(new RegExp(`\\n#${before} `));

    const submissions = lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.applicationNumber).toBe(summary.applicationNumber);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);

    const check = openStore(db);
    const intact = await stepsIntact(check, runId);
    expect(intact.ok, JSON.stringify(intact)).toBe(true);
    expect((await check.getRun(runId))?.status).toBe('done');
    expect((await check.auditTrail(runId)).map((e) => e.type)).toContain('resumed');
    check.close();

    // A final run is not resumed.
    const again = await runCli(['resume', runId, '--db', db, '--lab-url', labUrl()], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is already done .*a final run is not resumed/);
  }, 900_000);

  it('killed right after the Submit click (confirmation lost): resume finds the application on the list and does not submit again', async () => {
    const caseFile = caseFrom('shops-renewal-venkateswara-emporium.json');
    lab.configure(caseFile.clientId, {});
    const runId = await killAt(writeCase(dir, caseFile), /click button "Submit application" → needs_approval \[approved by auto:all\] → done/);
    expect(lab.submissions({ clientId: caseFile.clientId })).toHaveLength(1);

    const resumed = await runCli(['resume', runId, '--db', db, '--approve', 'all', '--lab-url', labUrl(), '--json'], { env, timeoutMs: 400_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as { status: string; reason: string; applicationNumber: string };
    expect(summary.status).toBe('done');
    expect(summary.reason).toMatch(/Already submitted earlier: application .* on the applications list/);

    const submissions = lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(summary.applicationNumber).toBe(submissions[0]!.applicationNumber);
    expect(resumed.stderr).not.toMatch(/click button "Submit application"/);

    const store = openStore(db);
    expect((await stepsIntact(store, runId)).ok).toBe(true);
    store.close();
  }, 900_000);
});
