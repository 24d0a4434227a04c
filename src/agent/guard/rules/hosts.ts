import { isAllowedUrl } from '../../../shared/allowed-hosts';
import { allow, block, type GuardRule } from './rule';

/**
 * `goto` goes only to the portal's own addresses (see `isAllowedUrl`). A relative address is
 * read against the page the agent is on, the way the browser would read it.
 */
export const hostsRule: GuardRule = {
  id: 'hosts',
  check(action, ctx) {
    if (action.type !== 'goto') return undefined;
    const result = isAllowedUrl(action.url, ctx.profile, ctx.observation.url);
    if (!result.ok) return block('hosts', `Not going there: ${result.reason}.`);
    return allow('hosts', `${result.host} is one of ${ctx.profile.name}'s addresses.`);
  },
};
