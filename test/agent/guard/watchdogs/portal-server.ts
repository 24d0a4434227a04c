import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { launchChromium } from '../../../../src/agent/browser/chromium';
import { contextOptionsFor, installWatchdogs, openGuardedContext, type GuardEvent, type Watchdogs } from '../../../../src/agent/guard/browser';
import { PortalProfile } from '../../../../src/shared/portal-profile';

/**
 * A portal and an attacker on one loopback server. Chromium maps every host name to 127.0.0.1
 * (`MAP * 127.0.0.1`), so shops.portal.example:PORT and attacker.example:PORT both land here and
 * are told apart by the Host header. A second server on another port stands for "the portal's
 * host on a port the profile does not list". Every request is counted where it lands.
 */

export const PORTAL = 'shops.portal.example';
/** A second allowed site: its frames run in their own renderer (site isolation). */
export const HELP = 'help.portal-aid.example';
export const ATTACKER = 'attacker.example';

export interface Hit {
  host: string;
  /** The server port the request reached. */
  port: number;
  method: string;
  path: string;
  /** Sec-Fetch-Dest: document, iframe, image, empty (fetch), script... */
  dest: string;
  upgrade: boolean;
}

export class PortalServer {
  readonly hits: Hit[] = [];
  private readonly pages = new Map<string, string>();
  private readonly servers: Server[] = [];
  port = 0;
  otherPort = 0;

  async start(): Promise<void> {
    this.port = await this.listen();
    this.otherPort = await this.listen();
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); })));
  }

  /** http://host:port for a host on the main server. */
  origin(host: string = PORTAL): string {
    return `http://${host}:${this.port}`;
  }

  /** Serves `html` at `path` on every host. */
  page(path: string, html: string): string {
    this.pages.set(path, `<!doctype html><html><head><title>${path}</title></head><body>${html}</body></html>`);
    return path;
  }

  /** Requests that reached `hostname` (any port, any kind). */
  to(hostname: string): Hit[] {
    return this.hits.filter((h) => h.host === hostname);
  }

  /** Requests that reached the second server (the unlisted port). */
  onOtherPort(): Hit[] {
    return this.hits.filter((h) => h.port === this.otherPort);
  }

  /** Every request that reached a host other than the allowed ones, or the unlisted port. */
  offPortal(): Hit[] {
    return this.hits.filter((h) => (h.host !== PORTAL && h.host !== HELP) || h.port !== this.port);
  }

  clear(): void {
    this.hits.length = 0;
  }

  profile(): PortalProfile {
    return PortalProfile.parse({
      id: 'shops',
      name: 'Shops portal',
      startUrl: `${this.origin()}/`,
      allowedHosts: [`${PORTAL}:${this.port}`, `${HELP}:${this.port}`],
      allowHttp: true,
      confirmation: { applicationNumberPattern: 'SHP-\\d+', pageContains: 'submitted' },
    });
  }

  private listen(): Promise<number> {
    const server = createServer((req, res) => {
      this.record(req, server, false);
      const url = new URL(req.url ?? '/', 'http://x');
      req.resume();
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        res.end();
        return;
      }
      if (url.pathname === '/file') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="licence.pdf"' });
        res.end('%PDF-1.4 not really');
        return;
      }
      const html = this.pages.get(url.pathname) ?? `<!doctype html><title>ok</title><p>ok ${req.headers.host ?? ''}</p>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
    });
    server.on('upgrade', (req: IncomingMessage, socket) => {
      this.record(req, server, true);
      socket.destroy();
    });
    this.servers.push(server);
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  }

  private record(req: IncomingMessage, server: Server, upgrade: boolean): void {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const colon = hostHeader.lastIndexOf(':');
    this.hits.push({
      host: colon > 0 ? hostHeader.slice(0, colon) : hostHeader,
      port: (server.address() as AddressInfo).port,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      dest: String(req.headers['sec-fetch-dest'] ?? ''),
      upgrade,
    });
  }
}

export function launchLabChromium(extraResolverRules?: string): Promise<Browser> {
  return launchChromium({ hostResolverRules: extraResolverRules ?? 'MAP * 127.0.0.1' });
}

export interface GuardedPage {
  context: BrowserContext;
  page: Page;
  watchdogs: Watchdogs;
  events: GuardEvent[];
}

/**
 * A context with Portal Desk's options, a work page, then every watchdog, but WITHOUT the egress
 * lock (the context's proxy): these tests try the page-level locks alone, so that a lock that
 * stops nothing fails them instead of being covered by the proxy below it. The egress lock has
 * tests of its own (test/agent/guard/egress-proxy.test.ts), and test/attacks runs both together.
 */
export async function guardedPage(browser: Browser, profile: PortalProfile): Promise<GuardedPage> {
  const context = await browser.newContext(contextOptionsFor(profile));
  const page = await context.newPage();
  const events: GuardEvent[] = [];
  const watchdogs = await installWatchdogs(context, profile, (event) => events.push(event), { withoutEgressLock: true });
  return { context, page, watchdogs, events };
}

/**
 * A page with the whole browser guard a run has: the context's egress lock (its proxy, which also
 * carries code's own fetches, such as the network lock's fetch of a new tab's first page) and
 * every watchdog.
 */
export async function fullyGuardedPage(browser: Browser, profile: PortalProfile): Promise<GuardedPage> {
  const context = await openGuardedContext(browser, profile);
  const events: GuardEvent[] = [];
  const watchdogs = await installWatchdogs(context, profile, (event) => events.push(event));
  const page = await watchdogs.openPage();
  return { context, page, watchdogs, events };
}

/** Long enough for any request a page makes on loopback to land. */
export function settle(page: Page, ms = 600): Promise<void> {
  return page.waitForTimeout(ms);
}

/** What `useGuardedPortal` gives a test file; `guarded` is each test's page, which a test may replace (it is closed after the test). */
export interface GuardedPortal {
  readonly server: PortalServer;
  browser: Browser;
  guarded: GuardedPage;
}

/**
 * The watchdog tests' set-up, registered on the calling file: the portal-and-attacker server and
 * one Chromium for the file, and for each test a cleared server log and a page with the page-level
 * locks (`guardedPage`), closed after the test.
 */
export function useGuardedPortal(): GuardedPortal {
  const lab = { server: new PortalServer() } as GuardedPortal;
  beforeAll(async () => {
    await lab.server.start();
    lab.browser = await launchLabChromium();
  });
  afterAll(async () => {
    await lab.browser?.close();
    await lab.server.stop();
  });
  beforeEach(async () => {
    lab.server.clear();
    lab.guarded = await guardedPage(lab.browser, lab.server.profile());
  });
  afterEach(() => lab.guarded.context.close());
  return lab;
}
