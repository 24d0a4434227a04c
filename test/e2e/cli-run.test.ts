import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { compareSubmission } from '../../lab';
import { openStore } from '../../src/store';
import { REPO, runCli } from '../support/cli';
import { breakpointPrefixes, labFormFillingModel, startMessagesApi, type MessagesApi } from '../../lab/messages-api';
import { minimumCacheableTokens } from '../../src/agent/decide/anthropic/cache-breakpoints';
import { DEFAULT_MODEL } from '../../src/agent/decide/anthropic/config';

const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');

describe('portal-desk run (the CLI, as a real process)', () => {
  it('--approve none is not done, shows the Submit click denied, and submits nothing', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-run-')), 'runs.sqlite');
    const r = await runCli(['run', '--case', SHOPS_CASE, '--approve', 'none', '--json', '--db', db]);
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout);
    expect(summary.status).toBe('failed');
    expect(summary.applicationNumber).toBeUndefined();
    expect(summary.submittedFields).toBeUndefined();
    expect(r.stderr).toMatch(/DENIED AUTOMATICALLY/);
    expect(r.stderr).toMatch(/rule-based form filler \(not AI\)/);
    expect(r.stderr).toMatch(/click button "Submit[^"]*" → needs_approval \[denied by auto:none\] → denied/);
    const store = openStore(db);
    const steps = await store.listSteps(summary.runId);
    const denied = steps.flatMap((s) => s.actions).filter((a) => a.outcome.status === 'denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]!.element).toMatch(/Submit/);
    store.close();
  });

  it('a malformed case file exits non-zero with one line naming the field, and nothing runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pd-bad-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ caseId: 'X-1', clientId: 'c1', portal: 'shops', task: 't', fields: { trade_licence_no: 1234 } }));
    const db = join(dir, 'runs.sqlite');
    const r = await runCli(['run', '--case', bad, '--approve', 'all', '--db', db]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/fields\.trade_licence_no/);
    expect(r.stdout).toBe('');
    const { existsSync } = await import('node:fs');
    expect(existsSync(db)).toBe(false);
  });
});

describe('portal-desk run --model anthropic (the real SDK against a loopback Messages API)', () => {
  const caseFile = loadCaseFile(SHOPS_CASE);
  let api: MessagesApi;
  beforeAll(async () => {
    // A scripted model that fills and submits, reading only what the planner sent it.
    api = await startMessagesApi(labFormFillingModel(caseFile, /\b(SHP-\d{4}-\d{6})\b/));
  });
  afterAll(() => api?.close());

  // One whole form through the CLI with --approve all (issue 27: no second form for what this one shows): done with
  // the number, the lab holding one submission equal to the case, the automatic approval on the Submit, the chain.
  it('--approve all ends done with the application number, one submission equal to the case, tokens on every model step, every cache breakpoint over the default model\'s minimum, and a cost estimate', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-run-')), 'runs.sqlite');
    const r = await runCli(['run', '--case', SHOPS_CASE, '--model', 'anthropic', '--approve', 'all', '--json', '--db', db], {
      // The default model (the one the breakpoints are checked against), whatever this shell's ANTHROPIC_MODEL says.
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: api.url, ANTHROPIC_MODEL: '' },
    });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.status).toBe('done');
    expect(summary.applicationNumber).toMatch(/^SHP-\d{4}-\d{6}$/);
    expect(compareSubmission(caseFile.fields, summary.submittedFields)).toEqual([]);

    // Every planner call shows its tokens in the step log, and the run adds them up.
    const calls = api.requests.filter((q) => q.path.endsWith('/messages')).length;
    const tokenLines = r.stderr.split('\n').filter((l) => /^#\d+ .* tokens in \d+ \(\+\d+ cached\) out \d+/.test(l));
    expect(tokenLines.length).toBe(calls);
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
    expect(summary.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(summary.usage.costUsd).toBeGreaterThan(0);
    // The default model's cache: every breakpoint over its minimum (claude-cost.test.ts measures the other forms and models).
    for (const request of api.requests) for (const prefix of breakpointPrefixes(request.body)) expect(prefix).toBeGreaterThanOrEqual(minimumCacheableTokens(DEFAULT_MODEL));
    expect(r.stderr).toMatch(/APPROVED AUTOMATICALLY \(--approve all/);
    // The step's header, then its lines (the commit gate's record of the request the click sent, its one card, among them).
    expect(r.stderr).toMatch(/#\d+ .*\n(?:.*\n)*?.*click button "Submit/);
    expect(r.stderr).toMatch(/commit_approved: Sent POST \S+\/apply\/submit, approved by auto:all/);
    const store = openStore(db);
    const run = await store.getRun(summary.runId);
    expect(run?.status).toBe('done');
    expect(run?.applicationNumber).toBe(summary.applicationNumber);
    const steps = await store.listSteps(summary.runId);
    expect(steps.length).toBe(summary.steps);
    const submits = steps.flatMap((s) => s.actions).filter((a) => a.approval);
    expect(submits.length).toBeGreaterThanOrEqual(1);
    expect(submits.every((a) => a.approval?.decision === 'approve' && a.approval.by === 'auto:all')).toBe(true);
    // Every step kept its pictures, as the built CLI takes them (its bundle, not the test's TypeScript, runs in the page).
    expect(steps.filter((s) => !s.screenshotHash || !s.afterScreenshotHash).map((s) => s.index)).toEqual([]);
    expect(steps.flatMap((s) => s.events).filter((e) => e.type === 'screenshot_failed')).toEqual([]);
    expect((await store.verifyRun(summary.runId)).ok).toBe(true);
    store.close();
    console.log(`one shops form with --model anthropic (lab, simulated usage = request chars/4): ${calls} calls, ${JSON.stringify(summary.usage)}`);
  });
});
