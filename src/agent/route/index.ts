/** Learned routes: a recurring form followed without the planner, guarded step by step, healed when the portal changes. */
export { RouteFollower, type RouteFollowerOptions, type RouteTraceEntry } from './route-follower';
export { nextRoute, type RouteUpdate, type RunEnding } from './route-update';
export { compareSignature, pageSignature, Scrubber, VALUE_MARK } from './page-signature';
export { identify, resolveIdentity } from './control-identity';
export { learnStep, resolveStep, type CaseValues } from './route-steps';
