import { statSync } from 'node:fs';
import { openStore } from '../../src/store';
import { recordedStep, type PageSample } from './recorded-step';
import { spread, type Spread } from './stats';

/**
 * Store write per step: `Store.recordStep` of whole steps (observation, actions, verdicts, a new
 * screenshot blob each) into a real SQLite file, as the store opens it for every run (WAL
 * journal, `synchronous=FULL`: the WAL is fsynced at every commit, one commit per step).
 * The run written here is the one the replay measurement loads.
 */

export interface StoreWrite {
  steps: number;
  perStepMs: Spread;
  /** Size of the database file (WAL included) after the run was written. */
  databaseBytes: number;
  /** Mean step JSON size and screenshot size, to say what one write carries. */
  stepJsonBytes: number;
  screenshotBytes: number;
}

export async function measureStoreWrite(dbPath: string, runId: string, steps: number, samples: readonly PageSample[]): Promise<StoreWrite> {
  if (samples.length === 0) throw new Error('no page samples to build steps from');
  const store = openStore(dbPath);
  const times: number[] = [];
  let jsonBytes = 0;
  let pngBytes = 0;
  try {
    await store.createRun({
      id: runId,
      caseId: 'bench-replay',
      clientId: 'bench-replay',
      portal: 'shops',
      task: 'shop-registration-renewal',
      planner: 'rules',
      approveMode: 'all',
      status: 'running',
      caseJson: JSON.stringify({ bench: true }),
      startedAt: new Date().toISOString(),
    });
    for (let i = 0; i < steps; i++) {
      const { step, png } = recordedStep(runId, i, samples[i % samples.length]!);
      jsonBytes += JSON.stringify(step).length;
      pngBytes += png.length;
      const started = performance.now();
      await store.recordStep(step, png);
      times.push(performance.now() - started);
    }
    await store.updateRun(runId, { status: 'done', reason: 'benchmark run', endedAt: new Date().toISOString() });
  } finally {
    store.close();
  }
  return {
    steps,
    perStepMs: spread(times),
    databaseBytes: fileSize(dbPath) + fileSize(`${dbPath}-wal`),
    stepJsonBytes: Math.round(jsonBytes / steps),
    screenshotBytes: Math.round(pngBytes / steps),
  };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
