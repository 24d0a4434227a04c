import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDebuggerTransport, type DebuggerTransport } from '../../src/agent/browser/cdp-transport';
import { startScreencast } from '../../src/console/screencast';
import { installWatchdogs, openGuardedContext, type GuardEvent } from '../../src/agent/guard/browser';
import { PortalProfile } from '../../src/shared/portal-profile';
import { PipeChromium, type PipeDebugger } from './support/pipe-chromium';
import { ATTACKER_HOST, PORTAL_HOST, Sites, WIDGET_HOST } from './support/sites';

/**
 * playwright-core drives real Chromium pages through `connectOverCDP(transport)` where the
 * transport only ever holds page-level debuggers (the shape of Electron's webContents.debugger),
 * never a browser endpoint and never a port.
 */

const sites = new Sites();
let pipe: PipeChromium;
let transport: DebuggerTransport;
let browser: Browser;
const browserCalls: string[] = [];

beforeAll(async () => {
  await sites.start();
  pipe = await PipeChromium.launch({ hostResolverRules: 'MAP * 127.0.0.1' });
  transport = createDebuggerTransport({ host: pipe, version: await pipe.version(), onBrowserCall: (m) => browserCalls.push(m) });
  browser = await chromium.connectOverCDP(transport, { timeout: 20_000 });
});

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await pipe?.close();
  await sites.stop();
});

describe('connecting', () => {
  it('asks only Browser.getVersion, Target.setAutoAttach and Target.getTargetInfo at browser level (plus the default context download setting)', () => {
    expect(browserCalls[0]).toBe('Browser.getVersion');
    expect(new Set(browserCalls)).toEqual(new Set(['Browser.getVersion', 'Target.setAutoAttach', 'Target.getTargetInfo', 'Browser.setDownloadBehavior']));
    expect(browser.version()).toMatch(/^\d+\./);
    expect(browser.contexts()).toHaveLength(1);
    expect(browser.contexts()[0]!.pages()).toHaveLength(0);
  });
});

describe('a page driven through the transport', () => {
  it('snapshots in ai mode, fills and clicks by ref, and works inside a cross-origin frame', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    expect(pipe.opened.at(-1)!.request.index).toBe(0);
    await page.goto(`${sites.origin()}/form`);
    const frame = page.frameLocator('iframe');
    await expect.poll(() => frame.getByRole('button', { name: 'Look up' }).count()).toBe(1);

    const snapshot = await page.ariaSnapshot({ mode: 'ai' });
    const ref = (pattern: RegExp): string => {
      const match = pattern.exec(snapshot);
      if (!match) throw new Error(`no ref for ${pattern} in:\n${snapshot}`);
      return match[1]!;
    };
    const nameRef = ref(/textbox "Applicant name" \[ref=((?:f\d+)?e\d+)\]/);
    const wardRef = ref(/textbox "Ward number" \[ref=((?:f\d+)?e\d+)\]/);
    const saveRef = ref(/button "Save draft" \[ref=((?:f\d+)?e\d+)\]/);
    const pinRef = ref(/textbox "PIN code" \[ref=(f\d+e\d+)\]/);
    const lookUpRef = ref(/button "Look up" \[ref=(f\d+e\d+)\]/);

    await page.locator(`aria-ref=${nameRef}`).fill('Lakshmi Iyer', { timeout: 20_000 });
    await page.locator(`aria-ref=${wardRef}`).fill('42', { timeout: 20_000 });
    await page.locator(`aria-ref=${saveRef}`).click({ timeout: 20_000 });
    await expect.poll(() => page.locator('#out').textContent()).toBe('Saved: Lakshmi Iyer / 42');

    // The frame is another site: it runs in its own renderer, reached through a child session.
    await page.locator(`aria-ref=${pinRef}`).fill('600001', { timeout: 20_000 });
    await page.locator(`aria-ref=${lookUpRef}`).click({ timeout: 20_000 });
    await expect.poll(() => frame.locator('#found').textContent()).toBe('Found PIN 600001');
    const widgetFrame = page.frames().find((f) => f.url().startsWith(sites.origin(WIDGET_HOST)));
    expect(widgetFrame).toBeDefined();
    expect(sites.hitsOn(WIDGET_HOST).length).toBeGreaterThan(0);

    await page.goto(`${sites.origin()}/next`);
    await expect(page.getByRole('heading', { name: 'Second page' }).count()).resolves.toBe(1);
    expect(page.url()).toBe(`${sites.origin()}/next`);

    await context.close();
    expect(pipe.opened.at(-1)!.closed).toBe(true);
    expect(transport.openPages()).toBe(0);
  });

  it('sends frame commands on the frame’s own child session (session ids reach the debugger)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const dbg = lastDebugger();
    await page.goto(`${sites.origin()}/form`);
    await expect.poll(() => page.frameLocator('iframe').getByRole('button', { name: 'Look up' }).count()).toBe(1);
    const sessions = new Set(dbg.commands.map((c) => c.sessionId));
    // '' is the debugger's own session (Target.* bookkeeping); then the page session and the frame's.
    expect(sessions.size).toBeGreaterThanOrEqual(3);
    await context.close();
  });
});

describe('the engine’s browser guard, unchanged, through the transport', () => {
  const profile = PortalProfile.parse({
    id: 'forms',
    name: 'Forms portal',
    startUrl: `http://${PORTAL_HOST}:1/form`,
    allowedHosts: [PORTAL_HOST, WIDGET_HOST].map((h) => `${h}:1`),
    allowHttp: true,
    confirmation: { applicationNumberPattern: 'APP-\\d+', pageContains: 'Submitted' },
  });

  it('blocks an off-portal link and stops a redirect off the portal (the redirect lock uses newCDPSession)', async () => {
    const bound = PortalProfile.parse({ ...profile, startUrl: `${sites.origin()}/form`, allowedHosts: [PORTAL_HOST, WIDGET_HOST].map((h) => `${h}:${sites.port}`) });
    const context = await openGuardedContext(browser, bound);
    const events: GuardEvent[] = [];
    const watchdogs = await installWatchdogs(context, bound, (e) => events.push(e));
    const page = await watchdogs.openPage();
    await page.goto(`${sites.origin()}/links`);

    await page.locator('#off').click({ timeout: 20_000 });
    await expect.poll(() => events.filter((e) => e.type === 'navigation_blocked').length).toBeGreaterThanOrEqual(1);

    await page.goto(`${sites.origin()}/bounce`).catch(() => undefined);
    await expect.poll(() => events.filter((e) => e.detail.includes('redirect')).length).toBeGreaterThanOrEqual(1);
    expect(sites.hitsOn(ATTACKER_HOST)).toEqual([]);
    expect(browserCalls).toContain('Target.attachToBrowserTarget');

    await watchdogs.dispose();
    await context.close();
  });
});

describe('contexts, cookies and refusals', () => {
  it('carries storage-state cookies into the first page and reads them back', async () => {
    const context = await browser.newContext({
      storageState: { cookies: [{ name: 'session', value: 'kept-login', domain: PORTAL_HOST, path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }], origins: [] },
    });
    // No page yet: the cookie is held by the transport and reported from there.
    expect((await context.cookies()).map((c) => c.name)).toEqual(['session']);
    const page = await context.newPage();
    await page.goto(`${sites.origin()}/set-cookie`);
    await page.goto(`${sites.origin()}/next`);
    expect(sites.hitsOn(PORTAL_HOST).at(-1)!.cookie).toContain('session=kept-login');
    const state = await context.storageState();
    expect(state.cookies.map((c) => `${c.name}=${c.value}`).sort()).toEqual(['session=kept-login', 'visit=portal-set']);
    await context.close();
  });

  it('keeps contexts apart (one host context per virtual context)', async () => {
    const a = await browser.newContext();
    const b = await browser.newContext();
    const pageA = await a.newPage();
    await pageA.goto(`${sites.origin()}/set-cookie`);
    const pageB = await b.newPage();
    await pageB.goto(`${sites.origin()}/next`);
    expect(sites.hitsOn(PORTAL_HOST).at(-1)!.cookie).not.toContain('visit=');
    expect(pipe.opened.at(-1)!.request.browserContextId).not.toBe(pipe.opened.at(-2)!.request.browserContextId);
    await a.close();
    await b.close();
  });

  it('refuses to grant permissions and names browser-level methods it does not answer', async () => {
    const context = await browser.newContext();
    await expect(context.grantPermissions(['geolocation'])).rejects.toThrow(/grants no browser permissions/);
    const other = await browser.newContext();
    await other.clearPermissions();
    await other.grantPermissions([]); // what the engine's watchdogs do: deny all
    await other.close();
    const session = await browser.newBrowserCDPSession();
    await expect(session.send('SystemInfo.getInfo')).rejects.toThrow(/SystemInfo\.getInfo is not answered at browser level/);
    await context.close();
  });

  it('streams the console’s screencast from a second session of the same page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const frames: string[] = [];
    const screencast = await startScreencast(page, (jpeg) => frames.push(jpeg), { frameIntervalMs: 50 });
    await page.goto(`${sites.origin()}/form`);
    await page.locator('#name').fill('frame me', { timeout: 20_000 });
    await expect.poll(() => frames.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(Buffer.from(frames[0]!, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    await screencast.stop();
    await context.close();
  });

  it('reports the page closed when its debugger detaches (the host closed it)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
    lastDebugger().detached('the view was destroyed');
    await closed;
    expect(page.isClosed()).toBe(true);
    await context.close();
  });
});

function lastDebugger(): PipeDebugger {
  const dbg = pipe.lastDebugger();
  if (!dbg) throw new Error('no page was opened');
  return dbg;
}
