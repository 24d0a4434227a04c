import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './test/support/heavy-first-sequencer';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests share 2 cores; keep files in parallel but bounded.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Real browsers on 2 shared cores: one retry absorbs a scheduling hiccup; a real failure fails twice.
    retry: 1,
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
