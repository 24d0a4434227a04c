import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import { executeRun } from '../../../src/service/run-service';
import { bindLabProfile } from '../../../lab';
import { LabCredentials } from '../../../lab/demo/lab-portals';
import { loadReplay } from '../../../src/audit/load-replay';
import { renderReportHtml } from '../../../src/audit/report-html';
import type { LoginStateStore } from '../../../src/shared/credentials';
import { READ_RESULT_EVENT, ReadResult } from '../../../src/shared/read-result';
import { REPO } from '../../support/cli';
import { EngineBench, RecordingApprovals, ScriptedInputs } from '../../support/engine';
import { reply, startMessagesApi, type MessagesApi } from '../../../lab/messages-api';

/**
 * Read-only tasks on the three lab portals: each status check (a known answer, the lab's
 * applications list per client) ends done with the right status, and touches nothing: no action
 * in any step, no submission, no POST to the portal but code's own sign-in form, the case's page
 * never left. Real lab, Chromium, SQLite; the model path through the real SDK and the loopback API.
 */
const READ_CASES = join(REPO, 'resources/cases/read');
const readCase = (file: string) => loadCaseFile(join(READ_CASES, file));

let bench: EngineBench;
let api: MessagesApi | undefined;
beforeAll(async () => {
  bench = await new EngineBench().start();
}, 60_000);
afterAll(async () => {
  await api?.close();
  await bench?.stop();
});

async function readRun(file: string, planner: 'rules' | 'anthropic' = 'rules', loginStates?: LoginStateStore) {
  const caseFile = readCase(file);
  const since = bench.lab.requestLog().length;
  const store = bench.store();
  const approvals = new RecordingApprovals();
  const run = await executeRun(
    {
      store,
      browser: bench.browser,
      approvals,
      inputs: new ScriptedInputs(() => null),
      credentials: new LabCredentials(),
      env: api ? { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: api.url } : {},
      ...(loginStates ? { loginStates } : {}),
    },
    { caseFile, profile: bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port), planner, approveMode: 'ask' },
  );
  const steps = await store.listSteps(run.runId);
  const posts = bench.lab
    .requestLog()
    .slice(since)
    .filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
  const events = steps.flatMap((s) => s.events);
  const result = ReadResult.parse(JSON.parse(events.find((e) => e.type === READ_RESULT_EVENT)?.message ?? 'null'));
  expect(approvals.asked).toEqual([]);
  return { caseFile, run, steps, posts, result, store, stored: await store.getRun(run.runId) };
}

function touchedNothing(r: Awaited<ReturnType<typeof readRun>>) {
  expect(r.steps.flatMap((s) => s.actions)).toEqual([]);
  expect(bench.lab.submissions({ clientId: r.caseFile.clientId })).toEqual([]);
  // The only request that is not a GET is code's own sign-in (the vault login), never the task's page.
  for (const post of r.posts) expect(`${post.method} ${post.path}`).toBe('POST /sign-in');
  expect(r.run.approvals).toBe(0);
}

describe('read-only tasks on the lab portals', () => {
  const KNOWN: [string, string, string][] = [
    ['shops-status-ravi-textiles.json', 'SHP-2025-000877', 'Returned for correction'],
    ['tax-status-godavari-exports.json', 'PTX-2025-000612', 'Under scrutiny'],
    ['power-status-nair-residence.json', 'PWR-2025-000789', 'Pending site inspection'],
  ];

  it('a status check on each portal ends done with the known status, read by code, and touches nothing', async () => {
    for (const [file, number, status] of KNOWN) {
      const r = await readRun(file);
      expect(r.run.status, `${file}: ${r.run.reason}`).toBe('done');
      expect(r.result).toMatchObject({ kind: 'status', applicationNumber: number, status, readBy: 'rules' });
      expect(r.stored).toMatchObject({ status: 'done', applicationNumber: number });
      expect(r.stored?.reason).toContain(`Status of ${number}: ${status}`);
      touchedNothing(r);
      // Recorded like any run: the last step read the applications list, and its model call is none.
      const last = r.steps.at(-1)!;
      expect(new URL(last.observation.url).pathname).toBe('/applications');
      expect(last.model).toBeNull();
      expect(r.steps.some((s) => s.events.some((e) => e.type === 'sign_in'))).toBe(true);
      // Replayable like any run: the chain verifies, the replay and the report show the result.
      const replay = await loadReplay(r.store, r.run.runId);
      expect(replay.verify.ok).toBe(true);
      expect(replay.steps).toHaveLength(r.steps.length);
      expect(renderReportHtml(replay)).toContain(status);
    }
  }, 240_000);

  it('signed in already (the saved login state of an earlier run): the status check sends no POST at all', async () => {
    const saved = new Map<string, string>();
    const loginStates: LoginStateStore = { load: async (c, p) => saved.get(`${c}/${p}`) ?? null, save: async (c, p, state) => void saved.set(`${c}/${p}`, state), remove: async (c, p) => void saved.delete(`${c}/${p}`) };
    const first = await readRun('shops-status-ravi-textiles.json', 'rules', loginStates);
    expect(first.posts.map((p) => p.path)).toEqual(['/sign-in']);
    const second = await readRun('shops-status-ravi-textiles.json', 'rules', loginStates);
    expect(second.run.status, second.run.reason).toBe('done');
    expect(second.result).toMatchObject({ status: 'Returned for correction' });
    expect(second.posts).toEqual([]);
    expect(second.steps).toHaveLength(1);
    touchedNothing(second);
  }, 120_000);

  it('fetches an acknowledgement (extract): number and reference from the page, the page kept as the receipt', async () => {
    const r = await readRun('shops-acknowledgement-ravi-textiles.json');
    expect(r.run.status, r.run.reason).toBe('done');
    expect(r.result).toMatchObject({ kind: 'extract', page: '/confirmation/SHP-2025-000123', applicationNumber: 'SHP-2025-000123', reference: 'TN/SHP/2019/004512', readBy: 'rules' });
    expect(r.result.kind === 'extract' && r.result.receiptSha256).toMatch(/^[0-9a-f]{64}$/);
    touchedNothing(r);
  }, 120_000);

  it('with the model: one extraction call reads the status, code checks it is on the page; still nothing touched', async () => {
    api = await startMessagesApi([
      (request) => {
        // The model reads the list it was sent and answers in the requested format.
        expect(JSON.stringify(request.body)).toContain('PWR-2025-000789');
        return reply.json({ applicationNumber: 'PWR-2025-000789', status: 'Pending site inspection', reference: '170044120093', submittedOn: '2025-11-02' });
      },
    ]);
    const r = await readRun('power-status-nair-residence.json', 'anthropic');
    expect(r.run.status, r.run.reason).toBe('done');
    expect(r.result).toMatchObject({ kind: 'status', status: 'Pending site inspection', readBy: 'model' });
    expect(api.requests).toHaveLength(1);
    expect(r.steps.at(-1)?.model?.usage?.inputTokens).toBeGreaterThan(0);
    touchedNothing(r);
  }, 120_000);

  it('a status the model reads that the page does not show is no answer: the run fails, nothing touched', async () => {
    await api?.close();
    api = await startMessagesApi([reply.json({ applicationNumber: 'SHP-2025-000877', status: 'Approved and closed', reference: null, submittedOn: null })]);
    const caseFile = readCase('shops-status-ravi-textiles.json');
    const store = bench.store();
    const run = await executeRun(
      { store, browser: bench.browser, approvals: new RecordingApprovals(), inputs: new ScriptedInputs(() => null), credentials: new LabCredentials(), env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: api.url } },
      { caseFile, profile: bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port), planner: 'anthropic', approveMode: 'ask' },
    );
    expect(run.status).toBe('failed');
    expect(run.reason).toMatch(/does not show it/);
    expect((await store.listSteps(run.runId)).flatMap((s) => s.actions)).toEqual([]);
  }, 120_000);
});
