import { expect, it } from 'vitest';
import { planPurge } from '../../src/audit';
import { sha256Hex } from '../../src/base/canonical-json';
import type { StepRecord } from '../../src/shared/run';
import { eventChainJson, eventHash, verifyExport, type RunExportV2, type Store, type VerifyResult } from '../../src/store';
import type { RunEvent } from '../../src/store/records';
import { eachStore, storeTarget, type Backend, type StoreTarget } from './backends';
import { buildStep, newRun, png } from './fixtures';

/**
 * Schema 5: each step keeps an after picture (taken once its actions ran and the page settled)
 * beside its before picture, and a gated step a full-page picture. Both are named in the chained
 * step by sha256, their bytes are checked like the before picture's, retention's purge record
 * names them, and the outcome's receipt hash must be the one the receipt step kept. Each test
 * edits one of these, in the store and in an export, and expects verify to name the field.
 */
const RUN = 'run-2026-03-02-p1';
const RECEIPT = sha256Hex('the acknowledgement page');

/** Step 1's requests pane and page errors: a request the commit gate refused (with its rule) and a script error. */
const STEP1_EVENTS = [
  {
    type: 'request_forbidden',
    message: 'Refused POST https://shops.lab.portal-desk.test/admin/delete: a forbidden path',
    at: '2026-03-02T09:15:10.000Z',
    request: { method: 'POST', url: 'https://shops.lab.portal-desk.test/admin/delete', outcome: 'refused' as const, rule: 'commit-gate:forbidden-path' },
  },
  { type: 'page_error', message: 'TypeError: postcodeLookup is not a function', at: '2026-03-02T09:15:11.000Z' },
];

const afterPng = (i: number) => png(100 + i);
const fullPagePng = (i: number) => png(200 + i, 48);

/** 4 steps, each with an after picture; step 2 is gated (an approval) and has a full-page picture; step 3 keeps the receipt. */
async function finishedRun(kind: Backend): Promise<{ path: StoreTarget; store: Store; steps: StepRecord[] }> {
  const path = await storeTarget(kind);
  const store = await path.open();
  await store.createRun(newRun({ id: RUN, reason: 'Starting' }));
  const steps: StepRecord[] = [];
  for (let i = 0; i < 4; i++) {
    const events = i === 3 ? [{ type: 'receipt', message: `Acknowledgement of SR-2026-118842: confirmation page, sha256 ${RECEIPT}, 24 bytes`, at: '2026-03-02T09:15:30.000Z' }] : i === 1 ? STEP1_EVENTS : undefined;
    const { step, png: shot } = buildStep(RUN, i, { approval: i === 2 ? { decision: 'approve', by: 'Anna Byrne' } : undefined, events });
    step.afterScreenshotHash = sha256Hex(afterPng(i));
    if (i === 2) step.fullPageHash = sha256Hex(fullPagePng(i));
    await store.recordStep(step, shot, { after: afterPng(i), fullPage: i === 2 ? fullPagePng(i) : null });
    steps.push(step);
  }
  await store.updateRun(RUN, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-118842', endedAt: '2026-03-02T09:16:00.000Z' });
  return { path, store, steps };
}

/** What someone holding the database does: drop the append-only guards, then write. */
async function tamper(target: StoreTarget, sql: string, ...params: unknown[]): Promise<void> {
  await target.dropGuards();
  await target.rows(sql, ...params);
}

function broken(v: VerifyResult): { field?: string; problem: string } {
  if (v.ok) throw new Error(`expected a broken chain, got intact: ${JSON.stringify(v)}`);
  return v;
}

function exportCopy(exp: unknown): RunExportV2 {
  return JSON.parse(JSON.stringify(exp)) as RunExportV2;
}

/** The outcome record with its receipt hash swapped, rehashed onto the record before it: a forger's edit of the last record. */
function forgedOutcome(trail: readonly RunEvent[], receiptSha256: string): { set: Record<string, unknown>; hash: string } {
  const outcome = trail.at(-1)!;
  const before = trail.at(-2)!;
  expect(outcome.type).toBe('outcome');
  const set = { ...outcome.set!, outcome: { ...(outcome.set!.outcome as Record<string, unknown>), receiptSha256 } };
  const { seq: _seq, hash: _hash, ...event } = outcome;
  return { set, hash: eventHash(before.hash!, eventChainJson({ ...event, pos: outcome.pos!, set })) };
}

eachStore('after and full-page pictures in the store', (kind) => {
  it('keeps both pictures with the step, and verify checks the bytes of all of them', async () => {
    const { store, steps } = await finishedRun(kind);
    const v = await store.verifyRun(RUN);
    // 4 before + 4 after + 1 full page
    expect(v).toMatchObject({ ok: true, format: 2, steps: 4, checkedScreenshots: 9 });
    const back = await store.getStep(RUN, 2);
    expect(back?.afterScreenshotHash).toBe(steps[2]!.afterScreenshotHash);
    expect(back?.fullPageHash).toBe(sha256Hex(fullPagePng(2)));
    expect(Buffer.from((await store.getScreenshot(back!.fullPageHash!))!)).toEqual(fullPagePng(2));
    expect((await store.getStep(RUN, 1))?.fullPageHash).toBeUndefined();
  });

  it('refuses a step whose after or full-page picture is not the PNG it names, writing nothing', async () => {
    const store = await (await storeTarget(kind)).open();
    await store.createRun(newRun({ id: RUN }));
    const { step, png: shot } = buildStep(RUN, 0);
    step.afterScreenshotHash = sha256Hex(afterPng(0));
    await expect(store.recordStep(step, shot, { after: afterPng(9) })).rejects.toThrow(/afterScreenshotHash .* is not the sha256 of the PNG given.*Nothing was written/);
    await expect(store.recordStep(step, shot)).rejects.toThrow(/names after picture .*afterScreenshotHash.* no PNG was given/);
    step.fullPageHash = sha256Hex(fullPagePng(0));
    await expect(store.recordStep(step, shot, { after: afterPng(0), fullPage: Buffer.from('GIF89a') })).rejects.toThrow(/full-page picture is not a PNG/);
    expect((await store.getRun(RUN))!.stepCount).toBe(0);
  });

  const edits: [string, (steps: StepRecord[]) => [string, ...unknown[]], RegExp, RegExp][] = [
    ["an after picture's bytes (swapped)", (s) => ['UPDATE screenshots SET png = ? WHERE sha256 = ?', afterPng(7), s[1]!.afterScreenshotHash], /^screenshots\./, /step 1: its after picture bytes do not match/],
    ["a full-page picture's bytes (swapped)", (s) => ['UPDATE screenshots SET png = ? WHERE sha256 = ?', afterPng(7), s[2]!.fullPageHash], /^screenshots\./, /step 2: its full-page picture bytes do not match/],
    ['an after picture (set to NULL, no purge)', (s) => ['UPDATE screenshots SET png = NULL WHERE sha256 = ?', s[3]!.afterScreenshotHash], /^screenshots\./, /step 3: its after picture .* no purge record/],
    ['a full-page picture (set to NULL, no purge)', (s) => ['UPDATE screenshots SET png = NULL WHERE sha256 = ?', s[2]!.fullPageHash], /^screenshots\./, /full-page picture .* no purge record/],
    ["a step's after-picture column", (s) => ['UPDATE steps SET after_hash = ? WHERE run_id = ? AND idx = 1', s[0]!.afterScreenshotHash, RUN], /^steps\[1\]\.afterScreenshotHash$/, /after picture column disagrees/],
    ["a step's full-page column (cleared)", () => ['UPDATE steps SET full_page_hash = NULL WHERE run_id = ? AND idx = 2', RUN], /^steps\[2\]\.fullPageHash$/, /full-page picture column disagrees/],
    ['a request the step recorded as refused (made "sent")', () => ["UPDATE steps SET json = replace(json, '\"outcome\":\"refused\"', '\"outcome\":\"sent\"') WHERE run_id = ? AND idx = 1", RUN], /^steps\[1\]$/, /does not match its chain hash/],
    ['a page error the step recorded', () => ["UPDATE steps SET json = replace(json, 'postcodeLookup is not a function', 'all fine') WHERE run_id = ? AND idx = 1", RUN], /^steps\[1\]$/, /does not match its chain hash/],
    ["the after picture named in a step's JSON", (s) => ['UPDATE steps SET json = replace(json, ?, ?) WHERE run_id = ? AND idx = 1', s[1]!.afterScreenshotHash, s[0]!.afterScreenshotHash, RUN], /^steps\[1\]$/, /does not match its chain hash/],
  ];
  for (const [what, sql, field, problem] of edits) {
    it(`names the field when ${what} is edited`, async () => {
      const { path, store, steps } = await finishedRun(kind);
      await tamper(path, ...sql(steps));
      const v = broken(await store.verifyRun(RUN));
      expect(v.field, v.problem).toMatch(field);
      expect(v.problem).toMatch(problem);
    });
  }

  it("purge removes after and full-page pictures, names them in its chained record, and they verify as purged", async () => {
    const { store, steps } = await finishedRun(kind);
    // purge --dry-run counts what purge drops: every picture of every step.
    expect(await planPurge(store, { olderThanMs: 0, now: new Date('2026-09-01T00:00:00.000Z') })).toMatchObject({ screenshots: 9 });
    const result = await store.purge({ olderThanMs: 0, now: new Date('2026-09-01T00:00:00.000Z') });
    expect(result.screenshots).toBe(9);
    const purge = (await store.auditTrail(RUN)).at(-1)!;
    const named = purge.set!.screenshots as string[];
    expect(named).toContain(steps[2]!.fullPageHash);
    for (const s of steps) expect(named).toContain(s.afterScreenshotHash);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, purgedScreenshots: 9, checkedScreenshots: 0 });
    expect(await store.getScreenshot(steps[2]!.fullPageHash!)).toBeNull();
  });

  it("compares the outcome's receipt sha256 with the receipt the step kept, even with the outcome record rehashed", async () => {
    const { path, store } = await finishedRun(kind);
    const forged = forgedOutcome(await store.auditTrail(RUN), sha256Hex('another page'));
    await tamper(path, "UPDATE run_events SET set_json = ?, hash = ? WHERE run_id = ? AND type = 'outcome'", JSON.stringify(forged.set), forged.hash, RUN);
    await tamper(path, 'UPDATE runs SET head_hash = ? WHERE id = ?', forged.hash, RUN);
    const v = broken(await store.verifyRun(RUN));
    expect(v.field, v.problem).toBe('outcome.receiptSha256');
    expect(v.problem).toMatch(/step 3 kept the receipt with sha256/);
  });
});

eachStore('after and full-page pictures in exports', (kind) => {
  it('carries every picture, and verifies', async () => {
    const { store, steps } = await finishedRun(kind);
    const exp = exportCopy(await store.exportRun(RUN));
    expect(Object.keys(exp.screenshots)).toHaveLength(9);
    expect(exp.screenshots[steps[2]!.fullPageHash!]).toBe(fullPagePng(2).toString('base64'));
    expect(verifyExport(exp)).toMatchObject({ ok: true, checkedScreenshots: 9 });
  });

  type Edit = [string, (e: RunExportV2, s: StepRecord[]) => void, RegExp, RegExp];
  const edits: Edit[] = [
    ["an after picture's bytes", (e, s) => (e.screenshots[s[0]!.afterScreenshotHash!] = afterPng(5).toString('base64')), /^screenshots\./, /step 0: its after picture bytes/],
    ['a full-page picture (removed)', (e, s) => delete e.screenshots[s[2]!.fullPageHash!], /^screenshots\./, /step 2: its full-page picture .* is missing/],
    ['a full-page picture (set to null, no purge)', (e, s) => (e.screenshots[s[2]!.fullPageHash!] = null), /^screenshots\./, /full-page picture .* no purge record/],
    ["a request's rule", (e) => (e.steps[1]!.events[0]!.request!.rule = 'commit-gate:approved'), /^steps\[1\]$/, /does not match its chain hash/],
    ['a page error (removed)', (e) => e.steps[1]!.events.splice(1, 1), /^steps\[1\]$/, /does not match its chain hash/],
    ['the after picture a step names', (e, s) => (e.steps[1]!.afterScreenshotHash = s[0]!.afterScreenshotHash), /^steps\[1\]$/, /does not match its chain hash/],
    ['the full-page picture a step names (dropped)', (e) => delete e.steps[2]!.fullPageHash, /^steps\[2\]$/, /does not match its chain hash/],
  ];
  for (const [what, edit, field, problem] of edits) {
    it(`names the field when ${what} is edited in an export`, async () => {
      const { store, steps } = await finishedRun(kind);
      const exp = exportCopy(await store.exportRun(RUN));
      edit(exp, steps);
      const v = broken(verifyExport(exp));
      expect(v.field, v.problem).toMatch(field);
      expect(v.problem).toMatch(problem);
    });
  }

  it("compares the outcome's receipt sha256 with the step's receipt in an export rehashed after the edit", async () => {
    const { store } = await finishedRun(kind);
    const exp = exportCopy(await store.exportRun(RUN));
    const forged = forgedOutcome(exp.auditTrail, sha256Hex('another page'));
    const outcome = exp.auditTrail.at(-1)!;
    outcome.set = forged.set;
    outcome.hash = forged.hash;
    exp.chain.headHash = forged.hash;
    exp.run.headHash = forged.hash;
    const v = broken(verifyExport(exp));
    expect(v.field, v.problem).toBe('outcome.receiptSha256');
  });
});
