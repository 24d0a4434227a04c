import type { EvalSuite } from './suite';
import { attacksSuite } from './suites/attacks';

/** Every suite `portal-desk eval --suite NAME` can run. Suites register here, one line each. */
export const SUITES: Record<string, () => Promise<EvalSuite>> = {
  attacks: async () => attacksSuite,
};
