import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOptionsFor } from '../../../src/agent/guard/browser';
import { hostResolverRulesFor, resolverTarget } from '../../../src/agent/guard/resolver-rules';
import { ATTACKER, HELP, launchLabChromium, PORTAL, PortalServer } from './watchdogs/portal-server';

describe('hostResolverRulesFor', () => {
  const profiles = [
    { allowedHosts: ['shops.portal.example', 'static.portal.example:8443'] },
    { allowedHosts: ['power.portal.example', 'shops.portal.example', 'bad host', 'trailing.example.'] },
  ];

  it('lets only the listed names resolve, by name (ports are the network lock’s business)', () => {
    expect(hostResolverRulesFor(profiles)).toBe(
      'MAP * ~NOTFOUND, EXCLUDE power.portal.example, EXCLUDE shops.portal.example, EXCLUDE static.portal.example',
    );
  });

  it('maps the listed names to one address for the lab', () => {
    expect(hostResolverRulesFor(profiles, { mapTo: '127.0.0.1' })).toBe(
      'MAP power.portal.example 127.0.0.1, MAP shops.portal.example 127.0.0.1, MAP static.portal.example 127.0.0.1, MAP * ~NOTFOUND',
    );
  });
});

describe('resolverTarget (where the egress proxy connects on the browser’s behalf)', () => {
  it('maps every name to the lab, keeping the port', () => {
    expect(resolverTarget('MAP * 127.0.0.1', 'shops.portal.example', 41234)).toEqual({ kind: 'mapped', hostname: '127.0.0.1', port: 41234 });
  });

  it('takes the first MAP rule that matches the name or name:port, and a port the rule gives', () => {
    const rules = 'MAP shops.portal.example 10.0.0.5, MAP *.portal.example:8443 10.0.0.6:443, MAP * ~NOTFOUND';
    expect(resolverTarget(rules, 'SHOPS.portal.example', 80)).toEqual({ kind: 'mapped', hostname: '10.0.0.5', port: 80 });
    expect(resolverTarget(rules, 'static.portal.example', 8443)).toEqual({ kind: 'mapped', hostname: '10.0.0.6', port: 443 });
    expect(resolverTarget(rules, 'static.portal.example', 443)).toEqual({ kind: 'not-found' });
    expect(resolverTarget(rules, 'attacker.example', 80)).toEqual({ kind: 'not-found' });
  });

  it('leaves excluded names and names no rule matches to DNS, and an exclusion wins wherever it stands', () => {
    const rules = hostResolverRulesFor([{ allowedHosts: ['shops.portal.example'] }]);
    expect(resolverTarget(rules, 'shops.portal.example', 443)).toEqual({ kind: 'as-is', hostname: 'shops.portal.example', port: 443 });
    expect(resolverTarget(rules, 'attacker.example', 443)).toEqual({ kind: 'not-found' });
    expect(resolverTarget(undefined, 'portal.gov.in', 443)).toEqual({ kind: 'as-is', hostname: 'portal.gov.in', port: 443 });
    expect(resolverTarget('MAP lab.example labhost, MAP ?.example [::1]', 'a.example', 80)).toEqual({ kind: 'mapped', hostname: '::1', port: 80 });
  });

  it('reads the rules the lab and the CLI pass to Chromium', () => {
    expect(resolverTarget(hostResolverRulesFor([{ allowedHosts: ['shops.portal.example'] }], { mapTo: '127.0.0.1' }), 'shops.portal.example', 5000)).toEqual({ kind: 'mapped', hostname: '127.0.0.1', port: 5000 });
    expect(resolverTarget('MAP * lab.internal', 'power.portal.example', 5000)).toEqual({ kind: 'mapped', hostname: 'lab.internal', port: 5000 });
  });
});

describe('hostResolverRulesFor in Chromium (no watchdogs at all)', () => {
  let browser: Browser;
  const server = new PortalServer();
  beforeAll(async () => {
    await server.start();
    browser = await launchLabChromium(hostResolverRulesFor([server.profile()], { mapTo: '127.0.0.1' }));
  });
  afterAll(async () => {
    await browser?.close();
    await server.stop();
  });

  it('the portal resolves; a redirect, a frame and an image to another host do not', async () => {
    const context = await browser.newContext(contextOptionsFor(server.profile()));
    try {
      const page = await context.newPage();
      const path = server.page('/resolver', `<img src="http://${ATTACKER}:${server.port}/pixel.gif"><iframe src="http://${ATTACKER}:${server.port}/frame"></iframe><iframe src="http://${HELP}:${server.port}/help"></iframe>`);
      await page.goto(`${server.origin()}${path}`);
      await expect(page.goto(`${server.origin()}/redirect?to=${encodeURIComponent(`http://${ATTACKER}:${server.port}/after`)}`)).rejects.toThrow(/ERR_NAME_NOT_RESOLVED/);
      await page.waitForTimeout(500);
      expect(server.to(ATTACKER)).toEqual([]);
      expect(server.to(PORTAL).length).toBeGreaterThanOrEqual(2);
      expect(server.to(HELP).length).toBe(1);
    } finally {
      await context.close();
    }
  });
});
