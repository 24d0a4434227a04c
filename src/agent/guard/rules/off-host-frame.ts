import { hasRef } from '../../../shared/action';
import { isAllowedUrl, shorten } from '../../../shared/allowed-hosts';
import { block, type GuardRule } from './rule';

/** Frames that hold the parent page's own content (same origin as the page around them). */
const PARENT_CONTENT = /^about:(blank|srcdoc)$/i;

/**
 * No click, typing or ticking inside a frame from a host that is not the portal's: typing case
 * data into another site's frame hands it to that site. Frames showing `about:blank` or
 * `about:srcdoc` hold the page's own content and are judged as the page.
 */
export const offHostFrameRule: GuardRule = {
  id: 'off-host-frame',
  check(action, ctx) {
    if (!hasRef(action)) return undefined;
    const control = ctx.control(action.ref);
    if (!control?.frameUrl || PARENT_CONTENT.test(control.frameUrl.split(/[?#]/)[0]!)) return undefined;
    const result = isAllowedUrl(control.frameUrl, ctx.profile, ctx.observation.url);
    if (result.ok) return undefined;
    return block('off-host-frame', `${control.label} sits in a frame from “${shorten(control.frameUrl)}”: ${result.reason}. Nothing is done inside other sites' frames.`);
  },
};
