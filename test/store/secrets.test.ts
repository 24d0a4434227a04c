import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { SecretRefusedError, type PgStore, type Store } from '../../src/store';
import { eachStore, storeTarget } from './backends';
import { addressPage, buildStep, newRun, png } from './fixtures';

const RUN = 'run-2026-03-02-a1';

eachStore('registered secrets', (kind) => {
  const open = async (): Promise<Store> => (await storeTarget(kind)).open();
  it('refuse a step that carries one, naming where but not what, and write nothing', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
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

    expect(await target.value('SELECT count(*) FROM steps')).toBe(0);
    expect(await target.value('SELECT count(*) FROM screenshots')).toBe(0);
    expect((await store.getRun(RUN))?.stepCount).toBe(0);

    // The redacted step, as the engine sends it, goes through.
    const redacted = buildStep(RUN, 0, { events: [{ type: 'otp', message: 'One-time code ••••17 typed by code', at: '2026-03-02T09:16:00.000Z' }] });
    await store.recordStep(redacted.step, redacted.png);
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, steps: 1 });
  });

  it('guard run updates, progress and model payloads too', async () => {
    const store = await open();
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
    const store = await open();
    await store.createRun(newRun({ id: 'a' }));
    await store.createRun(newRun({ id: 'b', caseId: 'C-b' }));
    store.registerSecret('Read 0', 'a'); // matches text in every fixture observation
    await expect(store.recordStep(buildStep('a', 0).step, png(0))).rejects.toThrow(SecretRefusedError);
    await store.recordStep(buildStep('b', 0).step, png(0));
    await store.updateRun('a', { status: 'failed', reason: 'stopped', endedAt: '2026-03-02T10:00:00.000Z' });
    await store.recordStep(buildStep('a', 0).step, png(0));
  });

  it('ignore values too short to be told from ordinary text', async () => {
    const store = await open();
    await store.createRun(newRun());
    store.registerSecret('a');
    store.registerSecret('');
    await store.recordStep(buildStep(RUN, 0).step, png(0));
    expect(addressPage(0).text).toContain('a');
  });
});

eachStore('markInterrupted', (kind) => {
  it('marks runs a dead process left running or waiting, and leaves live and finished runs alone', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
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
    await target.rows("UPDATE runs SET owner_pid = ?, owner_token = 'dead-console' WHERE id LIKE 'orphan-%' OR id IN ('finished', 'queued')", deadPid);
    // Another process (our parent, alive) owns this one: a CLI run on the same file.
    await target.rows("UPDATE runs SET owner_pid = ?, owner_token = 'other-cli' WHERE id = 'live-elsewhere'", process.ppid);

    const marked = await store.markInterrupted();
    expect(marked.sort()).toEqual(['orphan-approval', 'orphan-input', 'orphan-running']);
    const run = await store.getRun('orphan-running');
    expect(run).toMatchObject({ status: 'interrupted', reason: `Interrupted: the process running it stopped (pid ${deadPid}) after step 1; resume to continue` });
    expect((await store.auditTrail('orphan-approval')).at(-1)).toMatchObject({ type: 'interrupted', fromStatus: 'awaiting_approval', toStatus: 'interrupted', detail: { ownerPid: deadPid, steps: 0 } });
    for (const id of ['finished', 'queued', 'live-elsewhere', 'mine']) expect((await store.getRun(id))?.status).not.toBe('interrupted');
    expect(await store.markInterrupted()).toEqual([]);

    // Resuming writes a `resumed` row and makes this process the owner.
    // (The client's other live runs end first: a resume beside it is refused, one live run per client and portal.)
    await target.rows("UPDATE runs SET status = 'done' WHERE id IN ('live-elsewhere', 'mine')");
    await store.resumeRun('orphan-running', 'resumed by the test');
    expect((await store.auditTrail('orphan-running')).at(-1)).toMatchObject({ type: 'resumed', fromStatus: 'interrupted', toStatus: 'running' });
    expect(await store.markInterrupted()).toEqual([]);
  });
});

eachStore('markInterrupted across desks', (kind) => {
  it.skipIf(kind === 'sqlite')('leaves a run of another desk alone whatever its pid, and takeOver hands it on with a reason naming the desk', async () => {
    const target = await storeTarget(kind);
    const store = await target.open();
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    await store.createRun(newRun({ id: 'other-desk', caseId: 'C-o' }));
    await store.createRun(newRun({ id: 'this-desk', caseId: 'C-t' }));
    await target.rows("UPDATE runs SET owner_pid = ?, owner_token = 'gone', owner_host = 'desk-2' WHERE id = 'other-desk'", deadPid);
    await target.rows("UPDATE runs SET owner_pid = ?, owner_token = 'gone' WHERE id = 'this-desk'", deadPid);
    expect(await store.markInterrupted()).toEqual(['this-desk']);
    expect((await store.getRun('other-desk'))?.status).toBe('running');
    const pgStore = store as PgStore;
    expect(await pgStore.takeOver('other-desk', 'its desk stopped answering the office queue')).toBe(true);
    expect(await store.getRun('other-desk')).toMatchObject({ status: 'interrupted', reason: expect.stringMatching(/its desk stopped answering the office queue \(desk desk-2, pid \d+\) after step 0/) });
    expect(await pgStore.takeOver('other-desk', 'again')).toBe(false);
    expect(await store.verifyRun('other-desk')).toMatchObject({ ok: true });
  });
});
