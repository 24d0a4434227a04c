import { expect, it } from 'vitest';
import { canonicalJson, digest } from '../../src/base/canonical-json';
import type { RequestEntry } from '../../src/shared/request-log';
import type { StepRecord } from '../../src/shared/run';
import { verifyExport, type RunExportV2, type Store, type VerifyResult } from '../../src/store';
import { eachStore, storeTarget, type Backend, type StoreTarget } from './backends';
import { buildStep, newRun } from './fixtures';

/**
 * The egress lock's request log, kept in each step's chained record (`requests`, with
 * `requestsSha256` beside it). Each test edits a recorded request, in the store (SQLite and
 * PostgreSQL) and in an export, and expects verify to name `steps[N].requests`.
 */
const RUN = 'run-2026-03-02-q1';
const HOST = 'shops.lab.portal-desk.test';

const REQUESTS: RequestEntry[] = [
  { kind: 'http', method: 'GET', host: HOST, port: 80, path: '/address?postcode=…', outcome: 'sent', rule: 'egress-lock:portal-hosts', count: 14, firstAt: '2026-03-02T09:15:07.100Z', lastAt: '2026-03-02T09:15:09.000Z' },
  { kind: 'http', method: 'POST', host: HOST, port: 80, path: '/address', outcome: 'sent', rule: 'egress-lock:portal-hosts', count: 1, firstAt: '2026-03-02T09:15:09.500Z', lastAt: '2026-03-02T09:15:09.500Z' },
  {
    kind: 'tunnel',
    method: 'CONNECT',
    host: 'tracker.evil.example',
    port: 443,
    path: null,
    outcome: 'refused',
    rule: 'egress-lock:portal-hosts',
    reason: 'not one of the portal’s addresses',
    count: 3,
    firstAt: '2026-03-02T09:15:08.000Z',
    lastAt: '2026-03-02T09:15:08.400Z',
  },
];

async function runWithRequests(kind: Backend): Promise<{ target: StoreTarget; store: Store; steps: StepRecord[] }> {
  const target = await storeTarget(kind);
  const store = await target.open();
  await store.createRun(newRun({ id: RUN }));
  const steps: StepRecord[] = [];
  for (let i = 0; i < 3; i++) {
    const { step, png } = buildStep(RUN, i);
    if (i === 1) {
      step.requests = REQUESTS;
      step.requestsSha256 = digest(REQUESTS);
    }
    await store.recordStep(step, png);
    steps.push(step);
  }
  await store.updateRun(RUN, { status: 'failed', reason: 'Stopped for the test', endedAt: '2026-03-02T09:16:00.000Z' });
  return { target, store, steps };
}

function broken(v: VerifyResult): { field?: string; problem: string } {
  if (v.ok) throw new Error(`expected a broken chain, got intact: ${JSON.stringify(v)}`);
  return v;
}

eachStore('the egress lock’s request log in the store', (kind) => {
  it('keeps a step’s requests as recorded, and the run verifies', async () => {
    const { store } = await runWithRequests(kind);
    expect((await store.getStep(RUN, 1))?.requests).toEqual(REQUESTS);
    expect((await store.getStep(RUN, 0))?.requests).toBeUndefined();
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, steps: 3 });
  });

  const edits: [string, string, unknown[], RegExp, RegExp][] = [
    ['a refused request made "sent"', "UPDATE steps SET json = replace(json, '\"outcome\":\"refused\"', '\"outcome\":\"sent\"') WHERE run_id = ? AND idx = 1", [RUN], /^steps\[1\]\.requests$/, /recorded requests .* do not match the sha256 the step keeps/],
    ['a request’s host', 'UPDATE steps SET json = replace(json, ?, ?) WHERE run_id = ? AND idx = 1', ['tracker.evil.example', 'cdn.shops.example', RUN], /^steps\[1\]\.requests$/, /a recorded request was edited/],
    ['a request’s count', "UPDATE steps SET json = replace(json, '\"count\":14', '\"count\":1') WHERE run_id = ? AND idx = 1", [RUN], /^steps\[1\]\.requests$/, /a recorded request was edited/],
    ['the sha256 kept beside them (removed)', "UPDATE steps SET json = replace(json, ',\"requestsSha256\":\"' || ? || '\"', '') WHERE run_id = ? AND idx = 1", [digest(REQUESTS), RUN], /^steps\[1\]\.requests$/, /no sha256 beside them/],
  ];
  for (const [what, sql, params, field, problem] of edits) {
    it(`names steps[1].requests when ${what} in the database`, async () => {
      const { target, store } = await runWithRequests(kind);
      await target.dropGuards();
      await target.rows(sql, ...params);
      const v = broken(await store.verifyRun(RUN));
      expect(v.field, v.problem).toMatch(field);
      expect(v.problem).toMatch(problem);
    });
  }

  it('a request edited with its sha256 recomputed still breaks the step’s chain hash', async () => {
    const { target, store } = await runWithRequests(kind);
    const edited = REQUESTS.map((r) => (r.outcome === 'refused' ? { ...r, outcome: 'sent' as const } : r));
    const json = String(await target.value('SELECT json FROM steps WHERE run_id = ? AND idx = 1', RUN));
    const forged = json.replace(canonicalJson(REQUESTS), canonicalJson(edited)).replace(digest(REQUESTS), digest(edited));
    expect(forged).toContain(canonicalJson(edited));
    expect(forged).not.toBe(json);
    await target.dropGuards();
    await target.rows('UPDATE steps SET json = ? WHERE run_id = ? AND idx = 1', forged, RUN);
    const v = broken(await store.verifyRun(RUN));
    expect(v.field, v.problem).toBe('steps[1]');
    expect(v.problem).toMatch(/does not match its chain hash/);
  });
});

eachStore('the egress lock’s request log in exports', (kind) => {
  const edits: [string, (e: RunExportV2) => void][] = [
    ['a request’s path', (e) => (e.steps[1]!.requests![1]!.path = '/elsewhere')],
    ['a refused request removed', (e) => e.steps[1]!.requests!.splice(2, 1)],
    ['a request added', (e) => e.steps[1]!.requests!.push({ ...REQUESTS[0]!, path: '/extra' })],
  ];
  for (const [what, edit] of edits) {
    it(`names steps[1].requests when ${what} in an export`, async () => {
      const { store } = await runWithRequests(kind);
      const exp = JSON.parse(JSON.stringify(await store.exportRun(RUN))) as RunExportV2;
      expect(verifyExport(exp)).toMatchObject({ ok: true });
      edit(exp);
      const v = broken(verifyExport(exp));
      expect(v.field, v.problem).toBe('steps[1].requests');
    });
  }
});
