import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Session } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEgress } from '../../src/main/session-egress';

/**
 * The shell's egress lock on an Electron session, proven without Electron: a stand-in session
 * records what the lock sets, and requests go through the real proxy it points at, the way
 * Chromium sends them (absolute-form http requests to the proxy).
 */

class StandInSession {
  proxies: { proxyRules: string; proxyBypassRules?: string }[] = [];
  connectionsClosed = 0;
  async setProxy(config: { proxyRules: string; proxyBypassRules?: string }): Promise<void> {
    this.proxies.push(config);
  }
  async closeAllConnections(): Promise<void> {
    this.connectionsClosed += 1;
  }
}

let portal: Server;
let port = 0;
beforeAll(async () => {
  portal = createServer((_req, res) => res.end('portal page'));
  await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
  port = (portal.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => portal.close(() => resolve())));

/** GET `url` through the proxy at `proxyHost`: the status, or 'no answer' when the proxy drops it. */
function viaProxy(proxyHost: string, url: string): Promise<number | 'no answer'> {
  const [host, proxyPort] = proxyHost.split(':') as [string, string];
  return new Promise((resolve) => {
    const req = request({ host, port: Number(proxyPort), path: url, headers: { host: new URL(url).host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('no answer'));
    req.end();
  });
}

describe('SessionEgress (the shell’s lock below the page)', () => {
  it('points the session at a proxy, loopback included, that lets only its runs’ portals out', async () => {
    const lines: string[] = [];
    const egress = new SessionEgress((line) => lines.push(line), `MAP shops.portal.example 127.0.0.1, MAP attacker.example 127.0.0.1`);
    const session = new StandInSession();
    const shops = { name: 'Shops', allowedHosts: [`shops.portal.example:${port}`], allowHttp: true };
    try {
      await egress.lock(session as unknown as Session, [shops]);
      expect(session.proxies).toHaveLength(1);
      const { proxyRules, proxyBypassRules } = session.proxies[0]!;
      expect(proxyRules).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(proxyBypassRules).toBe('<-loopback>');
      expect(session.connectionsClosed).toBe(1);

      expect(await viaProxy(proxyRules, `http://shops.portal.example:${port}/`)).toBe(200);
      expect(await viaProxy(proxyRules, `http://attacker.example:${port}/`)).toBe('no answer');
      expect(await viaProxy(proxyRules, `http://127.0.0.1:${port}/`)).toBe('no answer');
      expect(lines.join('\n')).toMatch(/attacker\.example/);

      // The same portals again: the same proxy. No run left: a proxy that allows nothing.
      await egress.lock(session as unknown as Session, [shops]);
      expect(session.proxies).toHaveLength(1);
      await egress.lock(session as unknown as Session, []);
      expect(session.proxies).toHaveLength(2);
      expect(await viaProxy(session.proxies[1]!.proxyRules, `http://shops.portal.example:${port}/`)).toBe('no answer');
      // The first proxy is closed once it is replaced.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await viaProxy(proxyRules, `http://shops.portal.example:${port}/`)).toBe('no answer');
    } finally {
      await egress.closeAll();
    }
  });
});
