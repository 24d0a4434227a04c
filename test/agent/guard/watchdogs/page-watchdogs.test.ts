import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { contextOptionsFor, installWatchdogs, type GuardEvent } from '../../../../src/agent/guard/browser';
import { newTabsOf } from '../../../../src/agent/guard/watchdogs/popups';
import { ATTACKER, fullyGuardedPage, settle, useGuardedPortal } from './portal-server';

const lab = useGuardedPortal();
const server = lab.server;

async function open(html: string): Promise<void> {
  const path = server.page(`/w${Math.random().toString(36).slice(2)}`, html);
  await lab.guarded.page.goto(`${server.origin()}${path}`);
}

function events(type: GuardEvent['type']): GuardEvent[] {
  return lab.guarded.events.filter((e) => e.type === type);
}

describe('context options', () => {
  it('are the ones Portal Desk runs portals with', () => {
    const options = contextOptionsFor(server.profile());
    expect(options).toMatchObject({
      acceptDownloads: false,
      permissions: [],
      serviceWorkers: 'block',
      bypassCSP: false,
      ignoreHTTPSErrors: false,
      viewport: { width: 1280, height: 900 },
      baseURL: server.profile().startUrl,
    });
    expect(options.geolocation).toBeUndefined();
    expect(options.httpCredentials).toBeUndefined();
  });
});

describe('downloads', () => {
  it('are refused, cancelled and reported; nothing is saved', async () => {
    await open(`<a id="get" href="/file">Download licence</a><a id="attr" download href="/file?x=1">Save copy</a>`);
    const download = lab.guarded.page.waitForEvent('download');
    await lab.guarded.page.click('#get');
    const first = await download;
    await lab.guarded.page.click('#attr');
    await expect.poll(() => events('download_blocked').length, { timeout: 20_000 }).toBe(2);
    expect(await first.failure()).not.toBeNull();
    await expect(first.path()).rejects.toThrow();
    expect(events('download_blocked')[0]).toMatchObject({ url: `${server.origin()}/file`, detail: expect.stringContaining('licence.pdf') });
  });
});

describe('dialogs', () => {
  it('alert, confirm and prompt are dismissed at once and reported; the page never hangs', async () => {
    await open('<p>form</p>');
    const answers = await lab.guarded.page.evaluate(() => {
      alert('Your session will expire');
      return { confirmed: confirm('Submit now?'), typed: prompt('Type the code', '1234') };
    });
    expect(answers).toEqual({ confirmed: false, typed: null });
    expect(events('dialog_dismissed').map((e) => e.detail)).toEqual([
      'Dismissed a alert dialog: “Your session will expire”',
      'Dismissed a confirm dialog: “Submit now?”',
      'Dismissed a prompt dialog: “Type the code”',
    ]);
  });

  it('beforeunload is dismissed: the page, and what was typed, stays', async () => {
    await open(`<input id="name"><script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'Leave?'; });</script>`);
    await lab.guarded.page.fill('#name', 'Lakshmi Stores');
    await lab.guarded.page.close({ runBeforeUnload: true });
    await expect.poll(() => events('dialog_dismissed').length, { timeout: 20_000 }).toBe(1);
    expect(events('dialog_dismissed')[0]!.detail).toContain('beforeunload');
    expect(lab.guarded.page.isClosed()).toBe(false);
    expect(await lab.guarded.page.inputValue('#name')).toBe('Lakshmi Stores');
  });
});

describe('pop-ups and work pages', () => {
  it('keeps a new tab on the portal’s address for the run to follow, with its page locks on; closes a blank pop-up; leaves a page Portal Desk opens', async () => {
    // The whole guard, as a run has it: the network lock fetches a new tab's first page through the egress lock's proxy.
    await lab.guarded.context.close();
    lab.guarded = await fullyGuardedPage(lab.browser, server.profile());
    const second = await lab.guarded.watchdogs.openPage();
    await second.goto(`${server.origin()}/second`);
    expect(server.hits.some((h) => h.path === '/second')).toBe(true);
    await open(`<button id="go" onclick="window.open('/help')">Help</button><button id="blank" onclick="window.open('').document.write('Enter your password')">Blank</button>`);
    await lab.guarded.page.click('#go');
    const tabs = newTabsOf(lab.guarded.context)!;
    let kept: Page[] = [];
    await expect.poll(async () => (kept = [...kept, ...(await tabs.take())]).length, { timeout: 20_000 }).toBe(1);
    expect(new URL(kept[0]!.url()).pathname).toBe('/help');
    expect(server.hits.some((h) => h.path === '/help')).toBe(true);
    // The tab's own navigations are locked like the work page's: a redirect off the portal is stopped.
    await kept[0]!.goto(`${server.origin()}/redirect?to=${encodeURIComponent(`http://${ATTACKER}:${server.port}/from-tab`)}`).catch(() => undefined);
    await expect.poll(() => events('navigation_blocked').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    expect(server.to(ATTACKER)).toEqual([]);
    await kept[0]!.close();
    await lab.guarded.page.click('#blank');
    await expect.poll(() => events('popup_closed').length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => lab.guarded.context.pages().length, { timeout: 20_000 }).toBe(2);
    expect(lab.guarded.context.pages()).toContain(second);
  });
});

describe('reporting', () => {
  it('a sink that throws does not undo a block', async () => {
    const context = await lab.browser.newContext(contextOptionsFor(server.profile()));
    const page = await context.newPage();
    try {
      let calls = 0;
      await installWatchdogs(
        context,
        server.profile(),
        () => {
          calls += 1;
          throw new Error('log is full');
        },
        { withoutEgressLock: true },
      );
      const path = server.page('/sink', `<img src="http://${ATTACKER}:${server.port}/pixel.gif">`);
      await page.goto(`${server.origin()}${path}`);
      await expect.poll(() => calls, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      await settle(page, 400);
      expect(server.to(ATTACKER)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shortens long addresses in events', async () => {
    const long = `http://${ATTACKER}:${server.port}/x?d=${'a'.repeat(2000)}`;
    await open(`<img src="${long}">`);
    await expect.poll(() => events('request_blocked').length, { timeout: 20_000 }).toBe(1);
    expect(events('request_blocked')[0]!.url!.length).toBeLessThanOrEqual(300);
  });
});
