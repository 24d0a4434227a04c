import type { EvalSuite } from './suite';

/** Every suite `portal-desk eval --suite NAME` can run. Suites register here, one line each. */
export const SUITES: Record<string, () => Promise<EvalSuite>> = {};
