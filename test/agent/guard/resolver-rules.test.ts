import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOptionsFor } from '../../../src/agent/guard/browser';
import { hostResolverRulesFor } from '../../../src/agent/guard/resolver-rules';
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
