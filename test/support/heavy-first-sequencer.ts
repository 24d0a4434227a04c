import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest test files first. On a clean CI clone vitest has no durations cached and
 * orders files by size, so the two suites that each run dozens of real lab forms (a few minutes
 * each) could start last and run alone at the end; started first, everything else fills the other
 * worker beside them.
 */
const HEAVIEST = ['test/e2e/lab-cases.test.ts', 'test/realities/faults-suite.test.ts', 'test/attacks/attack-suite.test.ts', 'test/office/office-queue.test.ts'];

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
