import { describe, expect, it } from 'vitest';
import { offHostLinkRule } from '../../../../src/agent/guard/rules/off-host-link';
import { context, control } from '../fixtures';

describe('off-host-link rule', () => {
  const cases: [href: string, blocked: boolean][] = [
    ['https://shops.portal.example/renewal/step-2', false],
    ['https://static.portal.example/help.pdf', false],
    ['#top', false],
    ['javascript:__doPostBack(\'ctl00$Next\',\'\')', false],
    ['  JavaScript:void(0)', false],
    ['https://attacker.example/collect', true],
    ['https://shops.portal.example.attacker.example/', true],
    ['https://shops.portal.example@attacker.example/', true],
    ['http://shops.portal.example/', true],
    ['https://shops.portal.example:8443/', true],
    ['mailto:help@shops.portal.example', true],
    ['data:text/html,hi', true],
    ['//attacker.example/', true],
  ];

  it.each(cases)('a link to %j is blocked: %s', (href, blocked) => {
    const link = control({ role: 'link', name: 'Continue', href });
    const verdict = offHostLinkRule.check({ type: 'click', ref: link.ref }, context({ controls: [link] }));
    if (blocked) expect(verdict).toMatchObject({ verdict: 'block', rule: 'off-host-link', reason: expect.stringContaining('Not clicked') });
    else expect(verdict).toBeUndefined();
  });

  it('blocks a submit button whose form posts to another host', () => {
    const button = control({ role: 'button', name: 'Save and continue', href: 'https://attacker.example/steal' });
    expect(offHostLinkRule.check({ type: 'click', ref: button.ref }, context({ controls: [button] }))).toMatchObject({ verdict: 'block' });
  });

  it('leaves controls without an address alone', () => {
    const button = control({ role: 'button', name: 'Save' });
    expect(offHostLinkRule.check({ type: 'click', ref: button.ref }, context({ controls: [button] }))).toBeUndefined();
  });
});
