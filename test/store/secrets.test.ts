import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, SecretRefusedError, type Store } from '../../src/store';
import { addressPage, buildStep, newRun, png, tempDbPath } from './fixtures';

const RUN = 'run-2026-03-02-a1';
const stores: Store[] = [];
function open(path = tempDbPath()): Store {
  const store = openStore(path);
  stores.push(store);
  return store;
}
afterEach(() => {
  while (stores.length) stores.pop()?.close();
});

describe('registered secrets', () => {
  it('refuse a step that carries one, naming where but not what, and write nothing', async () => {
    const path = tempDbPath();
    const store = open(path);
    await store.createRun(newRun());
    store.registerSecret('Hunter2-vault-pw', RUN);
    store.registerSecret('493817', RUN); // a one-time code

    const leaked = buildStep(RUN, 0);
    leaked.step.observation.controls[3]!.value = 'Hunter2-vault-pw';
    const attempt = store.recordStep(leaked.step, leaked.png);
    await expect(attempt).rejects.toThrow(SecretRefusedError);
    await expect(store.recordStep(leaked.step, leaked.png)).rejects.toThrow(/observation\.controls\[3\]\.value contains a registered secret.*Nothing was written/);
    await expect(store.recordStep(leaked.step, leaked.png)).rejects.not.toThrow(/Hunter2/);

    const otpInEvent = buildStep(RUN, 0, { events: [{ type: 'otp', message: 'One-time code 493817 typed by code', at: '2026-03-02T09:16:00.000Z' }] });
    await expect(store.recordStep(otpInEvent.step, otpInEvent.png)).rejects.toThrow(/events\[0\]\.message/);

    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(0);
    expect(raw.prepare('SELECT count(*) FROM screenshots').pluck().get()).toBe(0);
    raw.close();
    expect((await store.getRun(RUN))?.stepCount).toBe(0);

    // The redacted step, as the engine sends it, goes through.
    const redacted = buildStep(RUN, 0, { events: [{ type: 'otp', message: 'One-time code ••••17 typed by code', at: '2026-03-02T09:16:00.000Z' }] });
    await store.recordStep(redacted.step, redacted.png);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, steps: 1 });
  });

  it('guard run updates, progress and model payloads too', async () => {
    const store = open();
    await store.createRun(newRun());
    store.registerSecret('correct horse battery');
    await expect(store.updateRun(RUN, { reason: 'Signed in with correct horse battery' })).rejects.toThrow(/reason contains a registered secret/);
    await expect(
      store.saveProgress({ clientId: 'c', portal: 'p', task: 't', caseId: 'C', sectionsDone: ['correct horse battery staple'], updatedAt: 'now' }),
    ).rejects.toThrow(/sectionsDone\[0\]/);
    await expect(store.recordModelPayload(RUN, 0, { request: { text: 'pw: correct horse battery' }, response: null })).rejects.toThrow(SecretRefusedError);
    await expect(store.createRun(newRun({ id: 'r2', caseJson: '{"note":"correct horse battery"}' }))).rejects.toThrow(/caseJson/);
    expect((await store.getRun(RUN))?.reason).toBeUndefined();
    expect(await store.getRun('r2')).toBeNull();
  });

  it('hold a run’s secrets to that run, and let them go when the run ends', async () => {
    const store = open();
    await store.createRun(newRun({ id: 'a' }));
    await store.createRun(newRun({ id: 'b', caseId: 'C-b' }));
    store.registerSecret('Read 0', 'a'); // matches text in every fixture observation
    await expect(store.recordStep(buildStep('a', 0).step, png(0))).rejects.toThrow(SecretRefusedError);
    await store.recordStep(buildStep('b', 0).step, png(0));
    await store.updateRun('a', { status: 'failed', reason: 'stopped', endedAt: '2026-03-02T10:00:00.000Z' });
    await store.recordStep(buildStep('a', 0).step, png(0));
  });

  it('ignore values too short to be told from ordinary text', async () => {
    const store = open();
    await store.createRun(newRun());
    store.registerSecret('a');
    store.registerSecret('');
    await store.recordStep(buildStep(RUN, 0).step, png(0));
    expect(addressPage(0).text).toContain('a');
  });
});

describe('markInterrupted', () => {
  it('marks runs a dead process left running or waiting, and leaves live and finished runs alone', async () => {
    const path = tempDbPath();
    const store = open(path);
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    for (const [id, status] of [
      ['orphan-running', 'running'],
      ['orphan-approval', 'awaiting_approval'],
      ['orphan-input', 'awaiting_input'],
      ['finished', 'done'],
      ['queued', 'queued'],
      ['live-elsewhere', 'running'],
      ['mine', 'running'],
    ] as const) {
      await store.createRun(newRun({ id, caseId: `C-${id}`, status }));
    }
    await store.recordStep(buildStep('orphan-running', 0).step, png(0));
    const raw = new Database(path);
    raw.prepare("UPDATE runs SET owner_pid = ?, owner_token = 'dead-console' WHERE id LIKE 'orphan-%' OR id IN ('finished', 'queued')").run(deadPid);
    // Another process (our parent, alive) owns this one: a CLI run on the same file.
    raw.prepare("UPDATE runs SET owner_pid = ?, owner_token = 'other-cli' WHERE id = 'live-elsewhere'").run(process.ppid);
    raw.close();

    const marked = await store.markInterrupted();
    expect(marked.sort()).toEqual(['orphan-approval', 'orphan-input', 'orphan-running']);
    const run = await store.getRun('orphan-running');
    expect(run).toMatchObject({ status: 'interrupted', reason: `Interrupted: the process running it stopped (pid ${deadPid}) after step 1; resume to continue` });
    expect((await store.auditTrail('orphan-approval')).at(-1)).toMatchObject({ type: 'interrupted', fromStatus: 'awaiting_approval', toStatus: 'interrupted', detail: { ownerPid: deadPid, steps: 0 } });
    for (const id of ['finished', 'queued', 'live-elsewhere', 'mine']) expect((await store.getRun(id))?.status).not.toBe('interrupted');
    expect(await store.markInterrupted()).toEqual([]);

    // Resuming writes a `resumed` row and makes this process the owner.
    await store.updateRun('orphan-running', { status: 'running' });
    expect((await store.auditTrail('orphan-running')).at(-1)).toMatchObject({ type: 'resumed', fromStatus: 'interrupted', toStatus: 'running' });
    expect(await store.markInterrupted()).toEqual([]);
  });
});
