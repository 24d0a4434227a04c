/** Learned routes: a recurring form followed without the planner, guarded step by step, healed when the portal changes. */
export { RouteFollower } from './route-follower';
export { nextRoute, type RouteUpdate } from './route-update';
