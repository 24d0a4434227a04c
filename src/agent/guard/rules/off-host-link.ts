import { isAllowedUrl, shorten } from '../../../shared/allowed-hosts';
import { block, type GuardRule } from './rule';

/**
 * A click on a link, or on a submit button whose form posts somewhere (`control.href`), that
 * leads off the portal's addresses is refused outright rather than sent to the clerk: the network
 * lock would stop the navigation anyway, and a form posted to another host would carry the case
 * data with it. `javascript:` links are not addresses (old portals run their forms through
 * them); whatever such a script navigates to meets the network lock.
 */
export const offHostLinkRule: GuardRule = {
  id: 'off-host-link',
  check(action, ctx) {
    if (action.type !== 'click') return undefined;
    const control = ctx.control(action.ref);
    if (!control?.href) return undefined;
    if (isScript(control.href, ctx.observation.url)) return undefined;
    const result = isAllowedUrl(control.href, ctx.profile, ctx.observation.url);
    if (result.ok) return undefined;
    return block('off-host-link', `${control.label} leads to “${shorten(control.href)}”, off the portal: ${result.reason}. Not clicked.`);
  },
};

function isScript(href: string, base: string): boolean {
  try {
    return new URL(href, base).protocol === 'javascript:';
  } catch {
    return false;
  }
}
