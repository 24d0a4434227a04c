import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { compareSubmission, startLab, type Lab } from '../../lab';
import type { CaseFile } from '../../src/shared/case-file';
import type { RunRecord } from '../../src/shared/run';
import { openStore } from '../../src/store';
import { BIN, REPO, tempHome } from '../support/cli';

/**
 * `portal-desk batch` as a real process against a lab this test runs (--lab-url), so the test can
 * give one client a one-time code at sign-in and hand the code over only when it chooses. One place
 * (`--concurrency 1`): the next case can start only in the place the waiting run gave up, so two
 * whole forms show what three did at two at once (issue 27).
 */

let lab: Lab;
beforeAll(async () => {
  lab = await startLab();
});
afterAll(() => lab?.stop());

const sample = (file: string, clientId: string): CaseFile => ({ ...loadCaseFile(join(REPO, 'resources/cases', file)), clientId });

describe('portal-desk batch', () => {
  it('runs case files one at a time; a run waiting for its one-time code holds nobody up; a bad file is one line and the rest run', async ({ onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'pd-batch-'));
    const cases = {
      waiting: sample('shops-renewal-anand-bakery.json', 'batch-otp-client'),
      next: sample('tax-return-kaveri-logistics-nov-2026.json', 'batch-tax-client'),
    };
    // Queue order is by file name: the OTP run starts; tax waits for the one place.
    writeFileSync(join(dir, '1-otp.json'), JSON.stringify(cases.waiting));
    writeFileSync(join(dir, '2-broken.json'), JSON.stringify({ ...cases.next, fields: {} }));
    writeFileSync(join(dir, '3-tax.json'), JSON.stringify(cases.next));
    lab.configure(cases.waiting.clientId, { otp: 'signin' });
    const codeFile = join(dir, 'code');
    const db = join(dir, 'runs.sqlite');

    const cli = spawn(
      process.execPath,
      [BIN, 'batch', dir, '--concurrency', '1', '--approve', 'all', '--json', '--db', db, '--lab-url', `http://127.0.0.1:${lab.port}`,
        // The clerk's phone: the code comes only once this test writes it.
        '--otp-command', `while [ ! -s '${codeFile}' ]; do sleep 0.2; done; cat '${codeFile}'`],
      { cwd: REPO, env: { ...process.env, PORTAL_DESK_HOME: tempHome() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // A batch that blocks never lets the test hand the code over: it fails at the timeout, and its process goes with it.
    onTestFinished(() => void cli.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
    // The code is handed over only after the tax run has taken the one place, while the OTP run
    // still waits: a batch that blocked on the waiting run would never get here.
    let handedOver = false;
    const released = new Promise<void>((resolve) => {
      cli.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const waiting = stderr.includes(`[${cases.waiting.caseId}] awaiting_input`);
        const nextStarted = new RegExp(`\\[${cases.next.caseId}\\] run run-\\S+ started`).test(stderr);
        if (waiting && nextStarted && !handedOver) {
          handedOver = true;
          writeFileSync(codeFile, lab.latestOtp(cases.waiting.clientId)!);
          resolve();
        }
      });
    });
    await Promise.race([released, exited]);
    const code = await exited;
    expect(handedOver, stderr).toBe(true);

    expect(code, stderr).toBe(1); // one file refused
    const report = JSON.parse(stdout) as { runs: { source: string; status: string; reason: string; runId?: string; applicationNumber?: string }[]; summary: Record<string, number> };
    expect(report.runs.map((r) => [r.source.split('/').pop(), r.status])).toEqual([
      ['1-otp.json', 'done'],
      ['2-broken.json', 'invalid'],
      ['3-tax.json', 'done'],
    ]);
    expect(report.summary).toMatchObject({ caseFiles: 3, done: 2, notDone: 0, refused: 1 });
    // The broken file: one line naming it and its problem; the table lists it as refused.
    const refusals = stderr.split('\n').filter((l) => l.includes('2-broken.json'));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/^REFUSED .*2-broken\.json: invalid case file: fields/);
    expect(refusals[1]).toMatch(/refused/);

    // Non-blocking, from the store: the tax run started in the one place while the OTP run's
    // sign-in step was waiting for its code.
    const store = openStore(db);
    try {
      const run = async (caseFile: CaseFile): Promise<RunRecord> => (await store.listRuns({ limit: 10 })).find((r) => r.caseId === caseFile.caseId)!;
      const [waiting, next] = [await run(cases.waiting), await run(cases.next)];
      const otpStep = (await store.listSteps(waiting.id)).find((s) => s.events.some((e) => e.type === 'otp'))!;
      expect(otpStep).toBeDefined();
      const t = (iso: string | undefined) => Date.parse(iso!);
      // A run waiting for the clerk gives its place up: the next starts while the code is awaited.
      expect(t(otpStep.startedAt)).toBeLessThan(t(next.startedAt));
      expect(t(next.startedAt)).toBeLessThan(t(otpStep.endedAt));
      for (const r of [waiting, next]) {
        expect(r.status).toBe('done');
        expect((await store.verifyRun(r.id)).ok).toBe(true);
      }
    } finally {
      store.close();
    }
    // Each client's form went in exactly once, as its case file says.
    for (const c of Object.values(cases)) {
      const submissions = lab.submissions({ clientId: c.clientId });
      expect(submissions, c.caseId).toHaveLength(1);
      expect(compareSubmission(c.fields, submissions[0]!.fields)).toEqual([]);
    }
  }, 300_000);
});
