import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { eachStore, storeTarget } from './backends';

const WRITER = join(__dirname, 'crash-writer.ts');
const ROOT = join(__dirname, '..', '..');
const RUN = 'run-crash';

interface Killed {
  /** Last step whose recordStep had resolved. */
  lastDone: number;
  /** Last step whose recordStep had been called. */
  lastBegun: number;
}

/** Starts the writer, lets it commit `minSteps` steps, waits `extraMs` more, SIGKILLs it. */
async function writeThenKill(path: string, minSteps: number, extraMs: number): Promise<Killed> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path, RUN], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const killed: Killed = { lastDone: -1, lastBegun: -1 };
  let seen = 0;
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [what, n] = line.split(' ');
        if (what === 'begin') killed.lastBegun = Number(n);
        if (what !== 'done') continue;
        killed.lastDone = Number(n);
        seen += 1;
        if (seen === minSteps) setTimeout(resolve, extraMs);
      }
    });
    child.on('exit', () => reject(new Error(`the writer exited on its own: ${stderr}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return killed;
}

eachStore('a writer killed mid-step', (kind) => {
  it('leaves a store that reopens clean, with every committed step whole and the chain verifying', { timeout: 60_000 }, async () => {
    const target = await storeTarget(kind);
    // A step takes ~10 ms to build and ~40-80 ms to record (a ~1 MB screenshot, fsynced): killing
    // 5-55 ms after a commit mostly lands inside recordStep, at different points of the write.
    // On PostgreSQL the kill drops the writer's connection mid-transaction and the server rolls it back.
    const rounds = [5, 25, 45, 15, 35, 55];
    let lastDone = -1;
    let killedInFlight = 0;
    for (const extra of rounds) {
      const killed = await writeThenKill(target.where, 3, extra);
      lastDone = killed.lastDone;
      const count = Number(await target.value('SELECT step_count FROM runs WHERE id = ?', RUN));
      // The kill caught a recordStep in flight when that step was begun but is not in the store.
      if (killed.lastBegun > killed.lastDone && count === killed.lastBegun) killedInFlight += 1;
    }
    expect(killedInFlight).toBeGreaterThan(0);

    if (kind === 'sqlite') expect(await target.value('PRAGMA integrity_check')).toBe('ok');

    const store = await target.open();
    const run = await store.getRun(RUN);
    // Every step whose recordStep had resolved is there (durable on resolve), and nothing half-written.
    expect(run!.stepCount).toBeGreaterThanOrEqual(lastDone + 1);
    const steps = await store.listSteps(RUN);
    expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i));
    for (const s of steps) expect(await store.getScreenshot(s.screenshotHash!)).not.toBeNull();
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, steps: run!.stepCount, headHash: run!.headHash, checkedScreenshots: run!.stepCount });
    // The dead writer's run is resumable.
    expect(await store.markInterrupted()).toEqual([RUN]);
    console.log(`crash test [${kind}]: ${rounds.length} SIGKILLs (${killedInFlight} during a recordStep), ${run!.stepCount} whole steps of ~1 MB, chain verifies`);
  });
});
