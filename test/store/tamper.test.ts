import { describe, expect, it } from 'vitest';
import { verifyExport, RunExportFormatError, type RunExport, type Store } from '../../src/store';
import { eachStore, storeTarget, type Backend, type StoreTarget } from './backends';
import { buildStep, newRun, png } from './fixtures';

const RUN = 'run-2026-03-02-a1';

/** A run of `n` steps on a fresh database; steps 2 and 4 share one screenshot. */
async function recordedRun(kind: Backend, n = 6): Promise<{ path: StoreTarget; store: Store }> {
  const path = await storeTarget(kind);
  const store = await path.open();
  await store.createRun(newRun());
  const shared = png(1234);
  for (let i = 0; i < n; i++) {
    const shot = i === 2 || i === 4 ? shared : i === 5 ? null : png(i);
    const { step } = buildStep(RUN, i, { screenshot: shot, approval: i === 3 ? { decision: 'approve', by: 'Anna Byrne' } : undefined });
    await store.recordStep(step, shot);
  }
  return { path, store };
}

/** What a tamperer with the database does: drop the append-only guard, then write. */
async function tamper(target: StoreTarget, sql: string, ...params: unknown[]): Promise<void> {
  await target.dropGuards();
  await target.rows(sql, ...params);
}

eachStore('verifyRun', (kind) => {
  it('passes an untouched run and reports its head', async () => {
    const { store } = await recordedRun(kind);
    const run = await store.getRun(RUN);
    // Records: the "created" event, then the six steps.
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, format: 2, steps: 6, events: 1, records: 7, headHash: run?.headHash, checkedScreenshots: 4, purgedScreenshots: 0 });
  });

  it('passes a run without steps, whose head is its "created" record', async () => {
    const store = await (await storeTarget(kind)).open();
    await store.createRun(newRun());
    const head = (await store.getRun(RUN))?.headHash;
    expect(head).toMatch(/^[0-9a-f]{64}$/);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, steps: 0, events: 1, headHash: head, checkedScreenshots: 0, purgedScreenshots: 0 });
    expect(verifyExport(await store.exportRun(RUN))).toMatchObject({ ok: true, steps: 0 });
    await expect(store.verifyRun('no-such-run')).rejects.toThrow(/No run no-such-run/);
  });

  it('names the step when one byte of its stored JSON changes', async () => {
    const { path, store } = await recordedRun(kind);
    // "Road" → "Roae": still valid JSON, one byte different.
    await tamper(path, "UPDATE steps SET json = replace(json, '14 Canal Road', '14 Canal Roae') WHERE run_id = ? AND idx = 3", RUN);
    const verdict = await store.verifyRun(RUN);
    expect(verdict).toMatchObject({ ok: false, brokenStep: 3 });
    expect(verdict.ok === false && verdict.problem).toMatch(/^step 3: its content does not match its chain hash/);
  });

  it('names the step when a screenshot byte changes', async () => {
    const { path, store } = await recordedRun(kind);
    const step1 = await store.getStep(RUN, 1);
    const blob = (await path.value('SELECT png FROM screenshots WHERE sha256 = ?', step1!.screenshotHash)) as Buffer;
    blob.writeUInt8(blob.readUInt8(blob.length - 20) ^ 0x01, blob.length - 20);
    await tamper(path, 'UPDATE screenshots SET png = ? WHERE sha256 = ?', blob, step1!.screenshotHash);
    const verdict = await store.verifyRun(RUN);
    expect(verdict).toMatchObject({ ok: false, brokenStep: 1 });
    expect(verdict.ok === false && verdict.problem).toMatch(/screenshot bytes do not match/);
  });

  it('names the first step that shows a shared screenshot when its bytes change', async () => {
    const { path, store } = await recordedRun(kind);
    const hash = (await store.getStep(RUN, 4))!.screenshotHash;
    await tamper(path, 'UPDATE screenshots SET png = ? WHERE sha256 = ?', png(1), hash);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 2 });
  });

  it('names a missing step', async () => {
    const { path, store } = await recordedRun(kind);
    await tamper(path, 'DELETE FROM steps WHERE run_id = ? AND idx = 2', RUN);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 2, problem: expect.stringMatching(/step 2: missing/) });
  });

  it('notices the last step removed, a wrong head, and a rewritten chain hash', async () => {
    const a = await recordedRun(kind);
    await tamper(a.path, 'DELETE FROM steps WHERE run_id = ? AND idx = 5', RUN);
    expect(await a.store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 5, problem: expect.stringMatching(/missing \(the run records 6 steps, 5 are stored\)/) });

    const b = await recordedRun(kind);
    await tamper(b.path, "UPDATE runs SET head_hash = 'ab' || substr(head_hash, 3) WHERE id = ?", RUN);
    expect(await b.store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 6, problem: expect.stringMatching(/head hash .* is not the last record's hash/) });

    // Rewriting step 2's JSON AND its hash moves the break to step 3, whose hash no longer follows.
    const c = await recordedRun(kind);
    const json = (await c.path.value('SELECT json FROM steps WHERE run_id = ? AND idx = 2', RUN)) as string;
    const prev = (await c.path.value('SELECT hash FROM steps WHERE run_id = ? AND idx = 1', RUN)) as string;
    const { stepHash } = await import('../../src/store');
    const forged = json.replace('14 Canal Road', '99 Canal Road');
    const shot = (JSON.parse(forged) as { screenshotHash: string | null }).screenshotHash;
    await tamper(c.path, 'UPDATE steps SET json = ?, hash = ? WHERE run_id = ? AND idx = 2', forged, stepHash(prev, forged, shot), RUN);
    expect(await c.store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 3 });
  });

  it('notices a changed run identity at step 0', async () => {
    const { path, store } = await recordedRun(kind);
    await path.rows(kind === 'sqlite' ? 'DROP TRIGGER runs_identity_fixed' : 'DROP TRIGGER runs_identity_fixed ON runs');
    await path.rows("UPDATE runs SET client_id = 'someone-else' WHERE id = ?", RUN);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: false, brokenStep: 0 });
  });

  it('refuses to rewrite steps or screenshot bytes through SQL while the guards are in place', async () => {
    const { path } = await recordedRun(kind);
    await expect(path.rows("UPDATE steps SET json = '{}' WHERE idx = 0")).rejects.toThrow(/append-only/);
    await expect(path.rows('DELETE FROM steps')).rejects.toThrow(/append-only/);
    await expect(path.rows('UPDATE screenshots SET png = ?', png(0))).rejects.toThrow(/never change/);
    await expect(path.rows('DELETE FROM screenshots')).rejects.toThrow(/never deleted/);
  });
});

eachStore('exportRun and verifyExport', (kind) => {
  it('verifies an export offline, after a trip through a JSON file', async () => {
    const { store } = await recordedRun(kind);
    const exp = await store.exportRun(RUN);
    expect(exp.steps).toHaveLength(6);
    expect(Object.keys(exp.screenshots)).toHaveLength(4);
    expect(exp.auditTrail[0]?.type).toBe('created');
    const fromFile = JSON.parse(JSON.stringify(exp, null, 2)) as unknown;
    const head = (await store.getRun(RUN))?.headHash;
    expect(verifyExport(fromFile)).toEqual(await store.verifyRun(RUN));
    expect(verifyExport(fromFile, { expectedHeadHash: head })).toMatchObject({ ok: true, headHash: head });
  });

  it('names the step changed in a tampered export', async () => {
    const { store } = await recordedRun(kind);
    const exp = JSON.parse(JSON.stringify(await store.exportRun(RUN))) as RunExport;
    exp.steps[4]!.observation.controls[0]!.value = '15 Canal Road';
    expect(verifyExport(exp)).toMatchObject({ ok: false, brokenStep: 4 });

    const shots = JSON.parse(JSON.stringify(await store.exportRun(RUN))) as RunExport;
    const hash = shots.steps[1]!.screenshotHash!;
    const bytes = Buffer.from(shots.screenshots[hash]!, 'base64');
    bytes.writeUInt8(bytes.readUInt8(40) ^ 0xff, 40);
    shots.screenshots[hash] = bytes.toString('base64');
    expect(verifyExport(shots)).toMatchObject({ ok: false, brokenStep: 1, problem: expect.stringMatching(/screenshot bytes/) });

    const dropped = JSON.parse(JSON.stringify(await store.exportRun(RUN))) as RunExport;
    dropped.steps.splice(3, 1);
    dropped.chain.stepHashes.splice(3, 1);
    expect(verifyExport(dropped)).toMatchObject({ ok: false, brokenStep: 3, problem: expect.stringMatching(/missing/) });
  });

  it('tells a forged but self-consistent export from the recorded run by its head', async () => {
    const { store } = await recordedRun(kind);
    const head = (await store.getRun(RUN))!.headHash!;
    const forged = JSON.parse(JSON.stringify(await store.exportRun(RUN))) as RunExport;
    // The last step cut off, with every count and total that names it brought into line.
    const cut = forged.steps.pop()!;
    forged.chain.stepHashes.pop();
    if (forged.version === 2) {
      forged.chain.stepPositions.pop();
      forged.chain.recordCount -= 1;
    }
    forged.run.stepCount = 5;
    for (const k of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'costUsd'] as const) forged.run.usage[k] -= cut.model!.usage![k];
    forged.run.headHash = forged.chain.stepHashes[4];
    forged.chain.headHash = forged.chain.stepHashes[4]!;
    expect(verifyExport(forged)).toMatchObject({ ok: true });
    expect(verifyExport(forged, { expectedHeadHash: head })).toMatchObject({ ok: false, brokenStep: 5 });
  });

});

describe('verifyExport', () => {
  it('refuses something that is not a run export', () => {
    expect(() => verifyExport({ hello: 'world' })).toThrow(RunExportFormatError);
    expect(() => verifyExport(null)).toThrow(/Not a Portal Desk run export/);
  });
});
