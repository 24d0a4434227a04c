import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { openStore } from '../../src/store';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 4: one run per client and portal on a store, the CLI's `run` included. Two `run`s
 * of the same case on one store at the same moment, against one lab: one runs and submits, the
 * other is refused in one line (exit 2) before it touches the portal. The lab holds one submission.
 */
const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');

describe('two concurrent `run`s of one case on one store', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('one submission: the second is refused while the first holds the client', { timeout: 400_000 }, async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-twice-')), 'runs.sqlite');
    const args = ['run', '--case', SHOPS_CASE, '--approve', 'all', '--json', '--db', db, '--lab-url', `http://127.0.0.1:${lab.port}`];
    const [a, b] = await Promise.all([runCli(args, { timeoutMs: 360_000 }), runCli(args, { timeoutMs: 360_000 })]);
    const codes = [a.code, b.code].sort();
    expect(codes, `${a.stderr.slice(-1500)}\n----\n${b.stderr.slice(-1500)}`).toEqual([0, 2]);
    const refused = a.code === 2 ? a : b;
    const lastLine = refused.stderr.trim().split('\n').at(-1)!;
    expect(lastLine).toMatch(/^portal-desk run: client \S+ on portal shops is being run already \(run run-\S+, process \d+\); nothing ran/);
    const clientId = loadCaseFile(SHOPS_CASE).clientId;
    expect(lab.submissions({ clientId })).toHaveLength(1);
    const store = openStore(db);
    try {
      expect((await store.listRuns()).map((r) => r.status)).toEqual(['done']);
    } finally {
      store.close();
    }
  });
});

/**
 * Issue 29: `resume` takes the same client+portal lock as `run`. A run stopped by its time limit
 * (interrupted, resumable) is resumed beside a live run of its client on its portal (refused in
 * one line, exit 2, the run left as it was), then by two `resume`s at the same moment against one
 * lab: one goes on and submits, the other is refused in one line (exit 2). The lab holds one submission.
 */
describe('`resume` holds the client like `run`', () => {
  const caseFile = join(REPO, 'resources/cases/shops-renewal-srinivas-iyer.json');
  const clientId = loadCaseFile(caseFile).clientId;
  const db = join(mkdtempSync(join(tmpdir(), 'pd-resume-twice-')), 'runs.sqlite');
  let lab: Lab;
  let runId: string;
  beforeAll(async () => {
    lab = await startLab();
    // One second of working time: the run stops, interrupted, long before the form is sent.
    const first = await runCli(['run', '--case', caseFile, '--approve', 'all', '--json', '--db', db, '--lab-url', `http://127.0.0.1:${lab.port}`, '--time-limit', '1'], { timeoutMs: 120_000 });
    expect(first.code, first.stderr.slice(-1500)).toBe(1);
    const summary = JSON.parse(first.stdout) as { runId: string; status: string; reason: string };
    expect(summary.status, summary.reason).toBe('interrupted');
    expect(summary.reason).toMatch(/^Time limit reached/);
    runId = summary.runId;
  }, 180_000);
  afterAll(async () => {
    await lab?.stop();
  });
  const resumeArgs = () => ['resume', runId, '--approve', 'all', '--json', '--db', db, '--lab-url', `http://127.0.0.1:${lab.port}`];

  it('a resume beside a live run of the same client on the same portal is refused, and the run is left as it was', { timeout: 180_000 }, async () => {
    // The live run: held by this test's process (alive), as a desk's run is while it works.
    const store = openStore(db);
    const c = loadCaseFile(caseFile);
    await store.createRun({ id: 'run-live-beside', caseId: c.caseId, clientId, portal: 'shops', task: c.task, planner: 'rules', approveMode: 'all', status: 'running', caseJson: '{}', startedAt: new Date().toISOString() }, { oneLivePerClient: true });
    try {
      const r = await runCli(resumeArgs(), { timeoutMs: 150_000 });
      expect(r.code, r.stderr.slice(-1500)).toBe(2);
      const lastLine = r.stderr.trim().split('\n').at(-1)!;
      expect(lastLine).toBe(`portal-desk resume: client ${clientId} on portal shops is being run already (run run-live-beside, process ${process.pid}); nothing ran. Wait for it to end, or resume that run.`);
      expect(r.stdout).toBe('');
      expect((await store.getRun(runId))?.status).toBe('interrupted');
      expect(lab.submissions({ clientId })).toHaveLength(0);
    } finally {
      await store.updateRun('run-live-beside', { status: 'failed', reason: 'the test ends its live run', endedAt: new Date().toISOString() });
      store.close();
    }
  });

  it('two resumes of one run at the same moment: one goes on and submits once, the other is refused in one line', { timeout: 400_000 }, async () => {
    const [a, b] = await Promise.all([runCli(resumeArgs(), { timeoutMs: 360_000 }), runCli(resumeArgs(), { timeoutMs: 360_000 })]);
    const codes = [a.code, b.code].sort();
    expect(codes, `${a.stderr.slice(-1500)}\n----\n${b.stderr.slice(-1500)}`).toEqual([0, 2]);
    const refused = a.code === 2 ? a : b;
    const lastLine = refused.stderr.trim().split('\n').at(-1)!;
    expect(lastLine).toMatch(new RegExp(`^portal-desk resume: run ${runId} \\(client ${clientId} on portal shops\\) is being run already by (process \\d+|another process); nothing ran\\. Resume it only after that process has stopped\\.$`));
    expect(lab.submissions({ clientId })).toHaveLength(1);
    const store = openStore(db);
    try {
      const run = await store.getRun(runId);
      expect(run?.status).toBe('done');
      expect(run?.applicationNumber).toBe(lab.submissions({ clientId })[0]?.applicationNumber);
      expect((await store.verifyRun(runId)).ok).toBe(true);
    } finally {
      store.close();
    }
  });
});
