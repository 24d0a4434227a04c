import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest test files first, longest to shortest (on two workers, the longest-first
 * order leaves the least idle at the end). On a clean CI clone vitest has no durations cached and
 * orders files by size, and size says little: the route variant's 30-line file runs five whole
 * forms (about 50 s) and, sorted by size, ran last of 172 on 7 December, one worker idle beside it
 * for most of its time (the main run's wall was 47 s over half its summed file time). The list is
 * the files of about 30 s or more, by their times in that CI run (test/support/file-times-reporter.ts
 * writes them); a file not in it keeps vitest's order after them.
 */
export const HEAVIEST = [
  'test/e2e/lab-cases.test.ts',
  'test/realities/faults-suite.test.ts',
  'test/attacks/attack-suite.test.ts',
  'test/route/route-runs.test.ts',
  'test/office/office-queue.test.ts',
  'test/console/clerk-day-e2e.test.ts',
  'test/route/route-roots.test.ts',
  'test/office/office-monthly.test.ts',
  'test/console/console-e2e.test.ts',
  'test/route/route-variant-claude.test.ts',
  'test/attacks/red-team/own-code.test.ts',
  'test/attacks/commit-gate/commit-gate.test.ts',
  'test/console/queue-e2e.test.ts',
  'test/agent/decide/review-page-lab.test.ts',
  'test/cli/bad-input-cli.test.ts',
  'test/batch/queue-keeps-moving.test.ts',
  'test/realities/resume.test.ts',
  'test/e2e/cli-run.test.ts',
  'test/lab/permits-portal.test.ts',
  'test/cli/one-run-per-client.test.ts',
  'test/agent/guard/watchdogs/network-lock.test.ts',
  'test/agent/loop/clerk-wait.test.ts',
  'test/realities/secrets-scan.test.ts',
  'test/cli/portals-learn-cli.test.ts',
];

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = HEAVIEST.findIndex((heavy) => file.moduleId.replaceAll('\\', '/').endsWith(heavy));
      return at === -1 ? HEAVIEST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
