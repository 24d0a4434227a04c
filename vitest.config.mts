import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './test/support/heavy-first-sequencer';

/**
 * Tests that drive a clock or worker processes to a deadline (a pg-boss cron fire window, office
 * desks answering each other's waits) and pass alone but not beside the lab and attack suites on 2
 * cores. `npm test` runs them after everything else, one at a time, with the machine to themselves
 * (PORTAL_DESK_TEST_SET=alone); they are never skipped.
 */
const ALONE = ['test/office/office-monthly.test.ts', 'test/office/office-take-over.test.ts'];
const alone = process.env.PORTAL_DESK_TEST_SET === 'alone';

export default defineConfig({
  test: {
    include: alone ? ALONE : ['test/**/*.test.ts'],
    exclude: alone ? [] : ALONE,
    // Browser tests share 2 cores; keep files in parallel but bounded.
    maxWorkers: alone ? 1 : 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Real browsers on 2 shared cores: one retry absorbs a scheduling hiccup; a real failure fails twice.
    // The alone set keeps state across a retry (its lab, its fake clock), so a retry there would only mislead.
    retry: alone ? 0 : 1,
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
