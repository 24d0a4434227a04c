import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { verifyExport, type Store } from '../../src/store';
import { eachStore, storeTarget, type Backend, type StoreTarget } from './backends';
import { buildStep, newRun, png } from './fixtures';

const DAY = 24 * 3600 * 1000;
const NOW = new Date('2026-06-01T12:00:00.000Z');

/** Three runs: one ended 100 days ago, one ended yesterday, one still running; all share one screenshot. */
async function threeRuns(kind: Backend): Promise<{ path: StoreTarget; store: Store; shared: Buffer }> {
  const path = await storeTarget(kind);
  const store = await path.open();
  const shared = png(500, 64);
  const runs = [
    { id: 'old', ended: new Date(NOW.getTime() - 100 * DAY) },
    { id: 'recent', ended: new Date(NOW.getTime() - DAY) },
    { id: 'live', ended: null },
  ];
  for (const [r, { id, ended }] of runs.entries()) {
    await store.createRun(newRun({ id, caseId: `C-${id}`, startedAt: new Date((ended ?? NOW).getTime() - 3600_000).toISOString() }));
    for (let i = 0; i < 4; i++) {
      const shot = i === 0 ? shared : png(1000 * r + i, 96);
      await store.recordStep(buildStep(id, i, { screenshot: shot }).step, shot);
      await store.recordModelPayload(id, i, { request: { messages: [{ role: 'user', content: `read ${i}` }] }, response: { content: [{ type: 'tool_use' }] } });
    }
    if (ended) await store.updateRun(id, { status: 'done', applicationNumber: `SR-${id}`, endedAt: ended.toISOString() });
  }
  return { path, store, shared };
}

eachStore('purge', (kind) => {
  it('drops screenshots and model payloads of runs that ended before the cutoff, and the chain still verifies', async () => {
    const { path, store, shared } = await threeRuns(kind);
    const oldSteps = await store.listSteps('old');
    const before = await store.exportRun('old');

    const result = await store.purge({ olderThanMs: 30 * DAY, now: NOW });
    expect(result).toEqual({ cutoff: '2026-05-02T12:00:00.000Z', runs: 1, screenshots: 3, screenshotBytes: expect.any(Number), modelPayloads: 4 });

    // Unique screenshots of the old run are gone; the one other runs still show stays.
    for (const s of oldSteps.slice(1)) expect(await store.getScreenshot(s.screenshotHash!)).toBeNull();
    expect(await store.getScreenshot(oldSteps[0]!.screenshotHash!)).toEqual(shared);
    expect(await store.getModelPayload('old', 0)).toBeNull();
    expect(await store.getModelPayload('recent', 0)).toEqual({ request: { messages: [{ role: 'user', content: 'read 0' }] }, response: { content: [{ type: 'tool_use' }] } });

    // Steps, digests, approvals and the trail stay; verification checks bytes where they remain.
    expect(await store.listSteps('old')).toEqual(oldSteps);
    expect(await store.verifyRun('old')).toMatchObject({ ok: true, steps: 4, checkedScreenshots: 1, purgedScreenshots: 3 });
    expect(await store.verifyRun('recent')).toMatchObject({ ok: true, checkedScreenshots: 4, purgedScreenshots: 0 });
    expect(await store.verifyRun('live')).toMatchObject({ ok: true, checkedScreenshots: 4 });
    const trail = await store.auditTrail('old');
    expect(trail.at(-1)).toMatchObject({ type: 'purged', detail: { cutoff: '2026-05-02T12:00:00.000Z', olderThanMs: 30 * DAY, screenshots: 3 } });
    // The purge is a chained record naming what it removed.
    expect((trail.at(-1)?.set?.screenshots as string[]).sort()).toEqual(oldSteps.slice(1).map((s) => s.screenshotHash).sort());

    // The export after purge says which screenshots were purged, and still verifies offline.
    const after = await store.exportRun('old');
    expect(Object.values(after.screenshots).filter((v) => v === null)).toHaveLength(3);
    expect(verifyExport(JSON.parse(JSON.stringify(after)))).toMatchObject({ ok: true, purgedScreenshots: 3 });
    // A head kept before the purge still anchors the purged run: only the purge record follows it.
    expect(verifyExport(after, { expectedHeadHash: before.chain.headHash! })).toMatchObject({ ok: true });
    expect(verifyExport(before, { expectedHeadHash: before.chain.headHash! })).toMatchObject({ ok: true });

    expect(await path.value('SELECT count(*) FROM screenshots WHERE png IS NULL AND purged_at IS NOT NULL')).toBe(3);
  });

  it('is idempotent, purges a run once, and frees a shared screenshot when its last run goes', async () => {
    const { store } = await threeRuns(kind);
    await store.purge({ olderThanMs: 30 * DAY, now: NOW });
    expect(await store.purge({ olderThanMs: 30 * DAY, now: NOW })).toMatchObject({ runs: 0, screenshots: 0, modelPayloads: 0 });
    // The live run ends; a month later both remaining runs are past the cutoff, the shared screenshot goes too.
    await store.updateRun('live', { status: 'failed', reason: 'Step cap reached', endedAt: NOW.toISOString() });
    const later = new Date(NOW.getTime() + 60 * DAY);
    expect(await store.purge({ olderThanMs: 30 * DAY, now: later })).toMatchObject({ runs: 2, screenshots: 7, modelPayloads: 8 });
    for (const id of ['old', 'recent', 'live']) {
      expect(await store.verifyRun(id)).toMatchObject({ ok: true, checkedScreenshots: 0, purgedScreenshots: 4 });
      // "old" was purged twice: once for its own screenshots, then for the one it shared.
      expect((await store.auditTrail(id)).filter((e) => e.type === 'purged')).toHaveLength(id === 'old' ? 2 : 1);
    }
  });

  // PostgreSQL hands space back with its own (auto)vacuum; the SQLite file does it in purge.
  it.skipIf(kind === 'postgres')('hands the space back to the file system', async () => {
    const target = await storeTarget(kind);
    const path = target.where;
    const store = await target.open();
    await store.createRun(newRun({ id: 'big' }));
    for (let i = 0; i < 20; i++) {
      const shot = png(i, 300); // ~90 KB of noise each
      await store.recordStep(buildStep('big', i, { screenshot: shot }).step, shot);
    }
    await store.updateRun('big', { status: 'done', endedAt: '2026-01-01T00:00:00.000Z' });
    const checkpoint = () => {
      const raw = new Database(path);
      raw.pragma('wal_checkpoint(TRUNCATE)');
      raw.close();
    };
    checkpoint();
    const sizeBefore = statSync(path).size;
    const result = await store.purge({ olderThanMs: DAY, now: NOW });
    checkpoint();
    const sizeAfter = statSync(path).size;
    expect(result.screenshotBytes).toBeGreaterThan(1_500_000);
    expect(sizeBefore - sizeAfter).toBeGreaterThan(result.screenshotBytes * 0.9);
  });

  it('gives a purged screenshot its bytes back when a new step shows the same picture', async () => {
    const { store, shared } = await threeRuns(kind);
    await store.updateRun('live', { status: 'done', endedAt: NOW.toISOString() });
    await store.purge({ olderThanMs: 0, now: new Date(NOW.getTime() + DAY) });
    expect(await store.getScreenshot(buildStep('x', 0, { screenshot: shared }).step.screenshotHash!)).toBeNull();
    await store.createRun(newRun({ id: 'next' }));
    await store.recordStep(buildStep('next', 0, { screenshot: shared }).step, shared);
    expect(await store.getScreenshot(buildStep('x', 0, { screenshot: shared }).step.screenshotHash!)).toEqual(shared);
    expect(await store.verifyRun('next')).toMatchObject({ ok: true, checkedScreenshots: 1 });
    expect(await store.verifyRun('old')).toMatchObject({ ok: true, checkedScreenshots: 1, purgedScreenshots: 3 });
  });
});
