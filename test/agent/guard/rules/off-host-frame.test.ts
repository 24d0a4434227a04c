import { describe, expect, it } from 'vitest';
import { offHostFrameRule } from '../../../../src/agent/guard/rules/off-host-frame';
import { context, control } from '../fixtures';

describe('off-host-frame rule', () => {
  it('blocks typing, clicking and ticking inside another site’s frame', () => {
    const box = control({ role: 'textbox', name: 'Business name', frameUrl: 'https://attacker.example/frame' });
    const ctx = context({ controls: [box] });
    for (const action of [
      { type: 'fill', ref: box.ref, field: 'business_name' },
      { type: 'click', ref: box.ref },
      { type: 'check', ref: box.ref, checked: true },
    ] as const) {
      expect(offHostFrameRule.check(action, ctx)).toMatchObject({ verdict: 'block', rule: 'off-host-frame' });
    }
  });

  it('allows the portal’s own frames and frames holding the page’s own content', () => {
    for (const frameUrl of ['https://static.portal.example/widget', 'about:blank', 'about:srcdoc', 'ABOUT:BLANK']) {
      const box = control({ role: 'textbox', name: 'Business name', frameUrl });
      expect(offHostFrameRule.check({ type: 'fill', ref: box.ref, field: 'business_name' }, context({ controls: [box] })), frameUrl).toBeUndefined();
    }
  });

  it('blocks data: and blob: frames', () => {
    for (const frameUrl of ['data:text/html,x', 'blob:https://shops.portal.example/1234']) {
      const box = control({ role: 'textbox', name: 'Business name', frameUrl });
      expect(offHostFrameRule.check({ type: 'fill', ref: box.ref, field: 'business_name' }, context({ controls: [box] })), frameUrl).toMatchObject({ verdict: 'block' });
    }
  });
});
