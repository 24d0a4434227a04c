import { loadReplay } from '../../src/audit';
import { openStore } from '../../src/store';
import { spread, timed, type Spread } from './stats';

/**
 * Replay load time of a long run (the one the store-write measurement recorded): `loadReplay`
 * (one export of the run, the hash chain and every screenshot hash verified, the typed replay
 * built) and the bare `listSteps`, each on a freshly opened store, as the CLI's `replay` and the
 * console's Replay screen open it.
 */

export interface ReplayLoad {
  steps: number;
  loadReplayMs: Spread;
  listStepsMs: Spread;
  /** The replay's own verdict on the chain (it must hold). */
  chainOk: boolean;
}

export async function measureReplayLoad(dbPath: string, runId: string, options: { warmup: number; trials: number }): Promise<ReplayLoad> {
  const replays: number[] = [];
  const lists: number[] = [];
  let steps = 0;
  let chainOk = false;
  for (let i = 0; i < options.warmup + options.trials; i++) {
    const store = openStore(dbPath);
    try {
      const replay = await timed(() => loadReplay(store, runId));
      const list = await timed(() => store.listSteps(runId));
      steps = list.value.length;
      chainOk = replay.value.verify.ok && replay.value.steps.length === steps;
      if (i >= options.warmup) {
        replays.push(replay.ms);
        lists.push(list.ms);
      }
    } finally {
      store.close();
    }
  }
  return { steps, loadReplayMs: spread(replays), listStepsMs: spread(lists), chainOk };
}
