import { describe, expect, it } from 'vitest';
import { hostsRule } from '../../../../src/agent/guard/rules/hosts';
import { context } from '../fixtures';

describe('hosts rule (goto)', () => {
  it('allows the portal, reading relative addresses against the page', () => {
    const ctx = context();
    expect(hostsRule.check({ type: 'goto', url: 'https://shops.portal.example/renewal' }, ctx)).toMatchObject({ verdict: 'allow', rule: 'hosts' });
    expect(hostsRule.check({ type: 'goto', url: '../status' }, ctx)).toMatchObject({ verdict: 'allow', rule: 'hosts' });
  });

  it('blocks everything else with the reason', () => {
    const ctx = context();
    for (const url of ['https://attacker.example/?d=Lakshmi', 'javascript:alert(1)', 'about:blank', 'https://shops.portal.example.attacker.example/', '//attacker.example/']) {
      const verdict = hostsRule.check({ type: 'goto', url }, ctx);
      expect(verdict, url).toMatchObject({ verdict: 'block', rule: 'hosts' });
      expect(verdict?.reason).toMatch(/^Not going there: /);
    }
  });

  it('has nothing to say about other actions', () => {
    expect(hostsRule.check({ type: 'press', key: 'Tab' }, context())).toBeUndefined();
  });
});
