import { defineConfig } from 'vitest/config';
import FileTimesReporter from './test/support/file-times-reporter';
import HeavyFirstSequencer from './test/support/heavy-first-sequencer';
import { ALONE, TIERS } from './test/support/tiers';

/**
 * The suite in tiers (test/support/tiers.ts, issue 27), one vitest project each: **unit**
 * (in-process), **integration** (Chromium, the run's one PostgreSQL cluster, the lab, servers and
 * child processes), **suites** (the per-commit samples of the evaluation suites; PORTAL_DESK_FULL=1,
 * `npm run test:full`, makes them the whole sweeps). `vitest run --project unit` runs one tier.
 *
 * The ALONE files drive worker processes to a deadline (office desks answering each other's waits,
 * a frozen desk's lease) and pass alone but not beside the lab and attack suites on 2 cores. `npm
 * test` runs them after everything else, with the machine to themselves (PORTAL_DESK_TEST_SET=alone),
 * both at once (each leaves most of a core idle while its desks wait); they are never skipped.
 *
 * The npm scripts load this file with `--configLoader runner` (Vite's module runner): the default
 * loader printed a warning four times a run that this file's extension-less TypeScript imports
 * would not load under Vite's future native loader.
 *
 * Every run writes each file's whole time (import, set-up, hooks and tests) to .vitest/times/
 * (main.json, alone.json or full.json; test/support/file-times-reporter.ts), from which
 * scripts/test-times.mjs prints the ten slowest files and the total.
 */
const alone = process.env.PORTAL_DESK_TEST_SET === 'alone';
const full = process.env.PORTAL_DESK_FULL === '1';
const POSTGRES = './test/support/postgres-global.ts';
const FIXTURES = './test/support/fixtures-global.ts';

export default defineConfig({
  test: {
    // Browser tests share 2 cores: two files at a time. Three took longer (1,422 s against 1,300 s for the main run,
    // 7 December): the machine is busy throughout, and a third file only slows the other two.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', new FileTimesReporter(`.vitest/times/${alone ? 'alone' : full ? 'full' : 'main'}.json`)],
    sequence: { sequencer: HeavyFirstSequencer },
    projects: alone
      ? [
          // The alone set keeps state across a retry (its lab, its fake clock), so a retry there would only mislead.
          { extends: true, test: { name: 'alone', include: [...ALONE], retry: 0, globalSetup: [POSTGRES, FIXTURES] } },
        ]
      : [
          // In-process files share their worker's modules (no fresh import per file: the tier took 158 s under load
          // isolated, 22 s shared); they hold no module state between files, and pass in shuffled order too.
          { extends: true, test: { name: 'unit', include: [...TIERS.unit], retry: 0, isolate: false } },
          // Real browsers on 2 shared cores: one retry absorbs a scheduling hiccup; a real failure fails twice.
          // Integration files share their worker's modules too (each still starts and closes its own browser, lab and
          // servers; the three that spy on console.log restore it): importing the engine afresh cost ~2 s a file.
          { extends: true, test: { name: 'integration', include: [...TIERS.integration], exclude: [...ALONE], retry: 1, isolate: false, globalSetup: [POSTGRES, FIXTURES] } },
          { extends: true, test: { name: 'suites', include: [...TIERS.suites], retry: full ? 0 : 1 } },
        ],
  },
});
