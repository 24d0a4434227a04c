import { expect, it } from 'vitest';
import { StepRecord, type ProgressRecord } from '../../src/shared/run';
import type { Store } from '../../src/store';
import { eachStore, storeTarget, type Backend } from './backends';
import { buildStep, newRun, png, SOME_USAGE } from './fixtures';

eachStore('recording steps', (kind) => {
  const open = async (): Promise<Store> => (await storeTarget(kind)).open();
  it('reads back each step equal to what went in, through the zod schema', async () => {
    const store = await open();
    await store.createRun(newRun());
    const written: StepRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const { step, png } = buildStep('run-2026-03-02-a1', i, { approval: i === 3 ? { decision: 'approve', by: 'Anna Byrne' } : undefined });
      await store.recordStep(step, png);
      written.push(step);
    }
    const read = await store.listSteps('run-2026-03-02-a1');
    expect(read).toEqual(written);
    expect(read.map((s) => StepRecord.parse(s))).toEqual(written);
    expect(await store.getStep('run-2026-03-02-a1', 3)).toEqual(written[3]);
    expect(await store.getStep('run-2026-03-02-a1', 9)).toBeNull();
    expect(await store.getScreenshot(written[2]!.screenshotHash!)).toEqual(png(2));
  });

  it('keeps the run’s step count, token totals and head hash with the steps', async () => {
    const store = await open();
    await store.createRun(newRun());
    await store.recordStep(buildStep('run-2026-03-02-a1', 0).step, buildStep('run-2026-03-02-a1', 0).png);
    const noModel = buildStep('run-2026-03-02-a1', 1, { usage: null, screenshot: null });
    await store.recordStep({ ...noModel.step, model: null }, null);
    const second = buildStep('run-2026-03-02-a1', 2);
    await store.recordStep(second.step, second.png);
    const run = await store.getRun('run-2026-03-02-a1');
    expect(run?.stepCount).toBe(3);
    expect(run?.usage.inputTokens).toBe(2 * SOME_USAGE.inputTokens);
    expect(run?.usage.cacheReadTokens).toBe(2 * SOME_USAGE.cacheReadTokens);
    expect(run?.usage.costUsd).toBeCloseTo(2 * SOME_USAGE.costUsd, 10);
    const verdict = await store.verifyRun('run-2026-03-02-a1');
    expect(verdict).toMatchObject({ ok: true, steps: 3, headHash: run?.headHash });
  });

  it('refuses a step out of order, a screenshot that does not match its hash, or a non-PNG, writing nothing', async () => {
    const store = await open();
    await store.createRun(newRun());
    const { step: s1, png: p1 } = buildStep('run-2026-03-02-a1', 1);
    await expect(store.recordStep(s1, p1)).rejects.toThrow(/the next one is step 0\. Nothing was written/);
    const { step: s0 } = buildStep('run-2026-03-02-a1', 0);
    await expect(store.recordStep(s0, png(99))).rejects.toThrow(/is not the sha256 of the PNG/);
    await expect(store.recordStep(s0, null)).rejects.toThrow(/no PNG was given/);
    await expect(store.recordStep(s0, Buffer.from('GIF89a not a png'))).rejects.toThrow(/not a PNG/);
    await expect(store.recordStep({ ...s0, runId: 'no-such-run' }, png(0))).rejects.toThrow(/No run no-such-run/);
    expect((await store.getRun('run-2026-03-02-a1'))?.stepCount).toBe(0);
    expect(await store.listSteps('run-2026-03-02-a1')).toEqual([]);
  });

  it('stores a screenshot once however many steps show it', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
    await store.createRun(newRun());
    await store.createRun(newRun({ id: 'run-b', caseId: 'C-2' }));
    const same = png(7, 64);
    for (let i = 0; i < 3; i++) await store.recordStep(buildStep('run-2026-03-02-a1', i, { screenshot: same }).step, same);
    await store.recordStep(buildStep('run-b', 0, { screenshot: same }).step, same);
    const length = kind === 'sqlite' ? 'length' : 'octet_length';
    expect(await target.rows(`SELECT count(*) AS n, sum(${length}(png)) AS bytes FROM screenshots`)).toEqual([{ n: 1, bytes: same.length }]);
    expect((await store.verifyRun('run-b')).ok).toBe(true);
  });
});

eachStore('runs, audit trail and replay queries', (kind) => {
  const open = async (): Promise<Store> => (await storeTarget(kind)).open();
  it('lists runs newest first, by status, with paging', async () => {
    const store = await open();
    for (let i = 0; i < 5; i++) {
      await store.createRun(newRun({ id: `run-${i}`, startedAt: `2026-03-0${i + 1}T09:00:00.000Z`, status: i % 2 ? 'done' : 'running' }));
    }
    expect((await store.listRuns()).map((r) => r.id)).toEqual(['run-4', 'run-3', 'run-2', 'run-1', 'run-0']);
    expect((await store.listRuns({ status: 'done' })).map((r) => r.id)).toEqual(['run-3', 'run-1']);
    expect((await store.listRuns({ status: ['done', 'running'], limit: 2, offset: 1 })).map((r) => r.id)).toEqual(['run-3', 'run-2']);
    expect(await store.getRun('nope')).toBeNull();
  });

  it('records status changes with reasons, resumption and field changes in an append-only trail', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
    await store.createRun(newRun());
    const id = 'run-2026-03-02-a1';
    await store.updateRun(id, { status: 'awaiting_approval', reason: 'Waiting for approval: Submit application' });
    await store.updateRun(id, { status: 'running', reason: undefined });
    expect((await store.getRun(id))?.reason).toBeUndefined();
    await store.updateRun(id, { status: 'interrupted', reason: 'the console closed' });
    await store.updateRun(id, { status: 'running' });
    await store.updateRun(id, { caseJson: '{"clerkValues":{"town":"Naas"}}' });
    await store.updateRun(id, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-118842', endedAt: '2026-03-02T09:40:00.000Z' });
    await expect(store.updateRun(id, { status: 'running' })).rejects.toThrow(/final status/);
    // An undefined application number at the end never erases one already recorded.
    await store.updateRun(id, { applicationNumber: undefined });

    const run = await store.getRun(id);
    expect(run).toMatchObject({ status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-118842', endedAt: '2026-03-02T09:40:00.000Z' });
    const trail = await store.auditTrail(id);
    expect(trail.map((e) => [e.type, e.fromStatus, e.toStatus, e.reason])).toEqual([
      ['created', undefined, 'running', undefined],
      ['status', 'running', 'awaiting_approval', 'Waiting for approval: Submit application'],
      ['status', 'awaiting_approval', 'running', undefined],
      ['status', 'running', 'interrupted', 'the console closed'],
      ['resumed', 'interrupted', 'running', undefined],
      ['updated', undefined, undefined, undefined],
      ['status', 'running', 'done', 'Submitted'],
      ['outcome', undefined, 'done', 'Submitted'],
    ]);
    // Every event is a chained record holding the values it set; the outcome closes the chain.
    expect(trail.map((e) => e.pos)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(trail[7]?.set).toMatchObject({ status: 'done', applicationNumber: 'SR-2026-118842', outcome: { steps: 0, receiptSha256: null } });
    expect(await store.verifyRun(id)).toMatchObject({ ok: true, format: 2, steps: 0, events: 8, records: 8 });
    expect(trail[5]?.detail).toEqual({ fields: ['caseJson'] });
    expect(trail[6]?.detail).toEqual({ fields: ['applicationNumber', 'endedAt'] });
    expect(JSON.stringify(trail)).not.toContain('Naas');

    await expect(target.rows('UPDATE run_events SET reason = ? WHERE run_id = ?', 'rewritten', id)).rejects.toThrow(/append-only/);
    await expect(target.rows('DELETE FROM run_events')).rejects.toThrow(/append-only/);
    await expect(target.rows("UPDATE runs SET case_id = 'C-other' WHERE id = ?", id)).rejects.toThrow(/identity never changes/);
    if (kind === 'postgres') await expect(target.rows('TRUNCATE run_events')).rejects.toThrow(/append-only/);
  });

  it('answers which actions were approved or denied, by whom and when', async () => {
    const store = await open();
    await store.createRun(newRun());
    const id = 'run-2026-03-02-a1';
    await store.recordStep(buildStep(id, 0).step, png(0));
    await store.recordStep(buildStep(id, 1, { approval: { decision: 'deny', by: 'Anna Byrne', note: 'county still wrong' } }).step, png(1));
    await store.recordStep(buildStep(id, 2, { approval: { decision: 'approve', by: 'Anna Byrne' } }).step, png(2));
    expect(await store.approvals(id)).toEqual([
      {
        runId: id,
        step: 1,
        actionIndex: 2,
        actionType: 'click',
        element: 'button "Submit application"',
        rule: 'risky-control',
        decision: 'deny',
        by: 'Anna Byrne',
        at: '2026-03-02T09:15:11.000Z',
        note: 'county still wrong',
      },
      {
        runId: id,
        step: 2,
        actionIndex: 2,
        actionType: 'click',
        element: 'button "Submit application"',
        rule: 'risky-control',
        decision: 'approve',
        by: 'Anna Byrne',
        at: '2026-03-02T09:15:18.000Z',
      },
    ]);
    expect(await store.approvals('other-run')).toEqual([]);
  });
});

eachStore('progress records', (kind: Backend) => {
  const open = async (): Promise<Store> => (await storeTarget(kind)).open();
  it('saves, loads and updates one record per client, portal and task', async () => {
    const store = await open();
    expect(await store.getProgress('lakshmi-stores', 'shops', 'shop-registration-renewal')).toBeNull();
    const first: ProgressRecord = {
      clientId: 'lakshmi-stores',
      portal: 'shops',
      task: 'shop-registration-renewal',
      caseId: 'C-2026-0142',
      sectionsDone: ['Step 1 of 4: Your business'],
      draftId: 'D-7741',
      updatedAt: '2026-03-02T09:20:00.000Z',
    };
    await store.saveProgress(first);
    expect(await store.getProgress('lakshmi-stores', 'shops', 'shop-registration-renewal')).toEqual(first);
    const second: ProgressRecord = {
      ...first,
      sectionsDone: [...first.sectionsDone, 'Step 2 of 4: Business address'],
      submitAttemptedAt: '2026-03-02T09:38:00.000Z',
      applicationNumber: 'SR-2026-118842',
      updatedAt: '2026-03-02T09:39:00.000Z',
    };
    await store.saveProgress(second);
    expect(await store.getProgress('lakshmi-stores', 'shops', 'shop-registration-renewal')).toEqual(second);
    expect(await store.getProgress('lakshmi-stores', 'shops', 'trade-licence')).toBeNull();
  });
});

eachStore('writes asked for at once', (kind) => {
  it('each stay one transaction: one ordered chain, and a refused write in their midst leaves the others whole', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
    const id = 'run-2026-03-02-a1';
    await store.createRun(newRun());
    // Nothing awaited in between: on SQLite each transaction awaits between its statements on the
    // store's one connection, so the driver must run them one after the other.
    const out = await Promise.allSettled([
      ...[0, 1, 2, 3, 4, 5].map((i) => store.updateRun(id, { reason: `note ${i}` })),
      store.recordStep(buildStep(id, 0).step, png(0)),
      store.recordStep(buildStep(id, 5).step, png(5)), // out of order: refused, rolled back
      store.saveProgress({ clientId: 'lakshmi-stores', portal: 'shops', task: 'shop-registration-renewal', caseId: 'C-2026-0142', sectionsDone: ['business'], updatedAt: '2026-03-02T09:00:00.000Z' }, id),
      store.getRun(id),
      store.recordModelPayload(id, 0, { request: { n: 1 }, response: null }),
    ]);
    expect(out.map((o) => o.status)).toEqual([...Array(7).fill('fulfilled'), 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(String((out[7] as PromiseRejectedResult).reason)).toMatch(/the next one is step [01]\. Nothing was written/);
    // SQLite runs them in the order asked; PostgreSQL's connections take the run's row lock in turn, in any order.
    const notes = (await store.auditTrail(id)).slice(1).map((e) => e.reason);
    expect(kind === 'sqlite' ? notes : [...notes].sort()).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4', 'note 5']);
    expect(await store.verifyRun(id)).toMatchObject({ ok: true, steps: 1, events: 7, records: 8 });
    expect(await store.getModelPayload(id, 0)).toEqual({ request: { n: 1 }, response: null });
    expect(Number(await target.value('SELECT count(*) FROM steps'))).toBe(1);
  });
});
