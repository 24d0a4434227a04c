import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { CHROMIUM_FLAGS, chromiumPath, launchChromium } from '../../../src/agent/browser/chromium';
import { egressLockOf, installWatchdogs, openGuardedContext, type GuardEvent } from '../../../src/agent/guard/browser';
import { CommitGate, type GateRecord } from '../../../src/agent/guard/commit-gate';
import { MemoryCa } from '../../../src/base/memory-ca';
import { PortalProfile } from '../../../src/shared/portal-profile';
import type { RequestEntry } from '../../../src/shared/request-log';

/**
 * The egress lock over https, in real Chromium: the proxy ends the browser's TLS with the launch's
 * own certificate authority (trusted by that browser alone, through its SPKI hash), reads every
 * request whole, judges it at the commit gate, and sends it on over TLS of its own that verifies
 * the portal's certificate. The portal here is a real https server whose certificates chain to a
 * "portal CA" given to the launch as the one extra trusted CA (as the https lab's is).
 */

const PORTAL = 'shops.portal.example';
/** Presents a certificate from a CA nobody trusts. */
const UNTRUSTED = 'untrusted.portal.example';
/** Presents a certificate of the trusted portal CA, but for another name. */
const WRONG_NAME = 'wrongname.portal.example';

interface Hit {
  host: string;
  method: string;
  path: string;
  body: string;
}

let portalCa: MemoryCa;
let strangerCa: MemoryCa;
let server: Server;
let port = 0;
const hits: Hit[] = [];
let browser: Browser;

const PAGES: Record<string, string> = {
  '/': '<h1>Shops portal</h1>',
  '/worker': `<h1>Worker</h1><script>
    const w = new SharedWorker('/shared-worker.js');
    w.port.onmessage = (e) => { document.title = e.data; };
    w.port.start();
  </script>`,
  '/unload': `<h1>Leaving</h1><script>
    addEventListener('pagehide', () => {
      navigator.sendBeacon('/apply/submit', 'owner_pan=AMNPR6621D&via=beacon');
      fetch('/apply/submit', { method: 'POST', body: 'owner_pan=AMNPR6621D&via=keepalive', keepalive: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      navigator.sendBeacon('/beacon-ping', 'sent');
    });
  </script>`,
  '/socket': `<h1>Socket</h1><script>
    const s = new WebSocket('wss://' + location.host + '/echo');
    s.onopen = () => s.send('hello over wss');
    s.onmessage = (e) => { document.title = 'echo:' + e.data; };
    s.onerror = () => { document.title = 'socket error'; };
  </script>`,
  '/service-worker': `<h1>SW</h1><script>
    navigator.serviceWorker.register('/sw.js')
      .then(() => navigator.serviceWorker.getRegistrations())
      .then((r) => { document.title = 'registrations:' + r.length; }, (e) => { document.title = 'error:' + e.name; });
  </script>`,
};

const SHARED_WORKER = `onconnect = async (e) => {
  const port = e.ports[0];
  const ping = await fetch('/worker-ping').then((r) => r.text(), () => 'failed');
  const post = await fetch('/apply/submit', { method: 'POST', body: 'owner_pan=AMNPR6621D&via=shared-worker', headers: { 'content-type': 'application/x-www-form-urlencoded' } }).then((r) => 'status ' + r.status, () => 'network error');
  port.postMessage(ping + ' / ' + post);
};`;

beforeAll(async () => {
  portalCa = await MemoryCa.make();
  strangerCa = await MemoryCa.make();
  server = createServer(
    {
      SNICallback: (name, done) => {
        const context = name === UNTRUSTED ? strangerCa.contextFor(name) : name === WRONG_NAME ? portalCa.contextFor('other.example') : portalCa.contextFor(name);
        context.then((c) => done(null, c), (err: Error) => done(err));
      },
    },
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        hits.push({ host: (req.headers.host ?? '').replace(/:\d+$/, ''), method: req.method ?? 'GET', path, body });
        if (path === '/shared-worker.js' || path === '/sw.js') {
          res.writeHead(200, { 'content-type': 'text/javascript' }).end(path === '/sw.js' ? 'self.addEventListener("fetch", () => {});' : SHARED_WORKER);
        } else if (path === '/worker-ping' || path === '/beacon-ping') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
        } else if (path.split('?')[0]! in PAGES) {
          const pathname = path.split('?')[0]!;
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${pathname}</title>${PAGES[pathname]}`);
        } else {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Application received</h1>');
        }
      });
    },
  );
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    hits.push({ host: (req.headers.host ?? '').replace(/:\d+$/, ''), method: 'UPGRADE', path: req.url ?? '', body: '' });
    sockets.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data: Buffer) => ws.send(data.toString())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  browser = await launchChromium({ hostResolverRules: 'MAP * 127.0.0.1', portalCa: portalCa.certPem });
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const open: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  hits.length = 0;
});

const origin = (host = PORTAL): string => `https://${host}:${port}`;

function profile(extra: Record<string, unknown> = {}): PortalProfile {
  return PortalProfile.parse({
    id: 'shops',
    name: 'Shops portal',
    startUrl: `${origin()}/`,
    allowedHosts: [PORTAL, UNTRUSTED, WRONG_NAME].map((h) => `${h}:${port}`),
    confirmation: { applicationNumberPattern: 'SE-\\d{6}', pageContains: 'Application received' },
    submitPaths: ['/apply/submit'],
    // Default deny: the harmless ping and the echo socket are named, so their arriving proves the route was taken.
    requestMap: [
      { method: 'POST', path: '/beacon-ping', kind: 'save' },
      { method: 'WEBSOCKET', path: '/echo', kind: 'lookup' },
    ],
    ...extra,
  });
}

/** A run's context: the egress lock, every watchdog and a commit gate whose clerk denies every card. */
async function guarded(p: PortalProfile = profile()): Promise<{ context: BrowserContext; page: Page; records: GateRecord[]; events: GuardEvent[]; asked: string[] }> {
  const context = await openGuardedContext(browser, p);
  open.push(context);
  const gate = new CommitGate(p);
  const records: GateRecord[] = [];
  const asked: string[] = [];
  gate.setJudge({
    approve: async (held) => {
      asked.push(`${held.method} ${held.url}`);
      return { decision: 'deny', by: 'clerk:test' };
    },
    origin: () => ({ origin: 'not_from_case' }),
    beforeSubmission: async () => ({ send: true }),
  });
  gate.onRecord((r) => records.push(r));
  const events: GuardEvent[] = [];
  const watchdogs = await installWatchdogs(context, p, (e) => events.push(e), { gate });
  return { context, page: await watchdogs.openPage(), records, events, asked };
}

function requests(context: BrowserContext): RequestEntry[] {
  return egressLockOf(context)!.takeRequests();
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

describe('egress lock over https', () => {
  it('ends the browser’s TLS with the launch’s CA, which only a browser given its SPKI hash accepts', async () => {
    const { context, page } = await guarded();
    await page.goto(`${origin()}/?who=anand`);
    await expect(page.locator('h1').innerText()).resolves.toBe('Shops portal');
    expect(egressLockOf(context)!.seesHttps).toBe(true);
    // Seen whole, one request at a time, as https: method, host, port, path (query values redacted).
    expect(requests(context)).toContainEqual(expect.objectContaining({ kind: 'https', method: 'GET', host: PORTAL, port, path: '/?who=…', outcome: 'sent' }));
    expect(hits).toContainEqual({ host: PORTAL, method: 'GET', path: '/?who=anand', body: '' });

    // The same proxy's certificate, to a browser told another SPKI hash: refused by Chromium.
    const other = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS, '--host-resolver-rules=MAP * 127.0.0.1', `--ignore-certificate-errors-spki-list=${portalCa.spkiHash}`] });
    try {
      const ctx = await other.newContext({ proxy: { server: egressLockOf(context)!.url, bypass: '<-loopback>' } });
      const p2 = await ctx.newPage();
      await expect(p2.goto(`${origin()}/`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await other.close();
    }
  });

  it('judges a SharedWorker POST and unload beacons and keepalive fetches to the submit address: a denying clerk, nothing reaches the portal', async () => {
    const { page, records } = await guarded();
    await page.goto(`${origin()}/worker`);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toContain('pong / network error');
    await page.goto(`${origin()}/unload`);
    await page.goto(`${origin()}/`);
    await until(() => hits.some((h) => h.path === '/beacon-ping'));

    // The worker and the unloading page really sent (their harmless requests arrived over https)...
    expect(hits.map((h) => `${h.method} ${h.path}`)).toEqual(expect.arrayContaining(['GET /worker-ping', 'POST /beacon-ping']));
    // ... and not one request to the submit address reached the portal.
    expect(hits.filter((h) => h.path.startsWith('/apply/submit'))).toEqual([]);
    // The worker's POST never passes the page's routing: it was refused at the egress lock, by the gate.
    const atEgress = records.filter((r) => r.type === 'commit_refused' && r.detail.includes('at the egress lock'));
    expect(atEgress.map((r) => `${r.method} ${r.url}`)).toContain(`POST ${origin()}/apply/submit`);
    // Three requests to the submit address (worker, beacon, keepalive), each stopped by the gate (refused at the egress lock, or denied).
    expect(records.filter((r) => r.url === `${origin()}/apply/submit`).length).toBeGreaterThanOrEqual(3);
  });

  it('carries a WebSocket over wss through the ended TLS', async () => {
    const { context, page } = await guarded();
    await page.goto(`${origin()}/socket`);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('echo:hello over wss');
    expect(hits).toContainEqual(expect.objectContaining({ method: 'UPGRADE', path: '/echo' }));
    expect(requests(context)).toContainEqual(expect.objectContaining({ kind: 'upgrade', method: 'GET', host: PORTAL, path: '/echo', outcome: 'sent' }));
  });

  it('refuses a portal whose certificate does not verify, with one clear line, and sends it nothing', async () => {
    const { context, page, events } = await guarded();
    for (const host of [UNTRUSTED, WRONG_NAME]) {
      const answer = await page.goto(`${origin(host)}/apply/start?pan=AMNPR6621D`);
      expect(answer?.status()).toBe(502);
      await expect(page.locator('body').innerText()).resolves.toContain(`the portal's certificate for ${host} does not verify`);
    }
    expect(hits).toEqual([]);
    const refused = requests(context).filter((r) => r.outcome === 'refused');
    expect(refused).toEqual([
      expect.objectContaining({ kind: 'https', host: UNTRUSTED, rule: 'egress-lock:portal-certificate', reason: expect.stringMatching(/^the portal's certificate for untrusted\.portal\.example does not verify \(.+\); nothing was sent$/) }),
      expect.objectContaining({ kind: 'https', host: WRONG_NAME, rule: 'egress-lock:portal-certificate', reason: expect.stringMatching(/not for this name/) }),
    ]);
    expect(events.filter((e) => e.type === 'request_blocked').map((e) => e.detail)).toEqual([
      expect.stringContaining(`${UNTRUSTED}:${port} at the egress lock: the portal's certificate`),
      expect.stringContaining(`${WRONG_NAME}:${port} at the egress lock: the portal's certificate`),
    ]);
  });

  it('blocks service workers in the portal’s context unless the profile needs them', async () => {
    const blocked = await guarded();
    const page = blocked.page;
    await page.goto(`${origin()}/service-worker`);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/^registrations:|^error:/);
    expect(await page.title()).not.toBe('registrations:1');
    expect(hits.filter((h) => h.path === '/sw.js')).toEqual([]);

    const needs = await guarded(profile({ needsServiceWorkers: true }));
    const page2 = needs.page;
    await page2.goto(`${origin()}/service-worker`);
    await expect.poll(() => page2.title(), { timeout: 10_000 }).toBe('registrations:1');
    // Its script came through the egress lock, over the ended TLS.
    expect(hits.filter((h) => h.path === '/sw.js').length).toBeGreaterThan(0);
  });
});
