import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { StepRecord } from '../../src/shared/run';
import { openStore, type Store } from '../../src/store';
import { RecordingApprovals, type EngineBench } from './engine';

/**
 * Runs that several files only read, recorded once per vitest run (issue 27): the first file to ask
 * records it on its own bench, a file asking meanwhile waits for it, and every file gets a copy of
 * its own (the store and the receipts kept beside it), so what one file edits or purges no other
 * sees. The recordings live in the folder the integration tier's global setup made for this run
 * (test/support/fixtures-global.ts) and go with it.
 */
export interface RecordedRun {
  /** The copy's SQLite store. */
  db: string;
  runId: string;
}

/** The shops renewal of resources/cases/shops-renewal-anand-bakery.json, rules planner, the clerk approving its one submit: done. */
const SHOPS_DONE = 'shops-renewal-anand-bakery.json';
const WAIT_MS = 300_000;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this vitest run's recorded runs (fixtures-global.ts). */
    fixturesDir: string;
  }
}

export async function recordedShopsRun(bench: EngineBench): Promise<RecordedRun> {
  const root = join(inject('fixturesDir'), 'shops-done');
  const ready = join(root, 'ready.json');
  const failed = join(root, 'failed.txt');
  let mine = false;
  try {
    mkdirSync(root);
    mine = true;
  } catch {
    // Another file records it (or has): wait below.
  }
  if (mine) {
    const store = openStore(join(root, 'runs.sqlite'));
    try {
      const run = await bench.run(bench.caseFile(SHOPS_DONE), { store, approvals: new RecordingApprovals('approve') });
      if (run.status !== 'done') throw new Error(`the recorded shops run ended ${run.status}: ${run.reason}`);
      store.close();
      writeFileSync(ready, JSON.stringify({ runId: run.runId }));
    } catch (err) {
      store.close();
      writeFileSync(failed, String(err instanceof Error ? err.stack : err));
      throw err;
    }
  }
  const started = Date.now();
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(`the recorded shops run failed in another file:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() - started > WAIT_MS) throw new Error(`the recorded shops run was not ready within ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const { runId } = JSON.parse(readFileSync(ready, 'utf8')) as { runId: string };
  const copy = mkdtempSync(join(tmpdir(), 'pd-recorded-'));
  cpSync(root, copy, { recursive: true, filter: (path) => !path.endsWith('ready.json') });
  return { db: join(copy, 'runs.sqlite'), runId };
}

/** `recordedShopsRun`'s copy opened: its store (the caller closes it), run id and steps. */
export async function openRecordedShopsRun(bench: EngineBench): Promise<{ store: Store; runId: string; steps: StepRecord[] }> {
  const run = await recordedShopsRun(bench);
  const store = openStore(run.db);
  return { store, runId: run.runId, steps: await store.listSteps(run.runId) };
}
