import type { EvalSuite } from './suite';
import { attacksSuite } from './suites/attacks';
import { designSystemsSuite } from './suites/design-systems';
import { faultsSuite } from './suites/faults';
import { labWithRoutesSuite, routesSuite } from './suites/lab-routes';
import { permitsSuite } from './suites/permits';

/** Every suite `portal-desk eval --suite NAME` can run. Suites register here, one line each. */
export const SUITES: Record<string, () => Promise<EvalSuite>> = {
  attacks: async () => attacksSuite,
  'design-systems': async () => designSystemsSuite,
  // Static: the bin's tsx CommonJS hook does not serve dynamic import() of TypeScript files.
  faults: async () => faultsSuite,
  lab: async () => labWithRoutesSuite,
  permits: async () => permitsSuite,
  routes: async () => routesSuite,
};
