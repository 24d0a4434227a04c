import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostnameOf } from '../hosts';
import { readRequest, sendText } from '../http';
import type { LabState } from '../state';
import { countAttackerUpgrades, handleAttackerHost } from './attacker-host';

/**
 * The lab's second port: "the portal's own host on another port" has to land somewhere to be
 * counted. Every request that reaches it is an attacker request, whatever its Host header says
 * (it is logged as `host:port`). The same port number answers UDP too, for WebRTC (ICE checks,
 * STUN, TURN): each datagram is one attacker request, `UDP udp:<port>/datagram`. Closing the
 * server closes the UDP socket.
 */
export async function listenAttackerPort(state: LabState, listenHost: string): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    const server = await listenTcp(state, listenHost);
    const port = (server.address() as AddressInfo).port;
    const udp = await bindUdp(state, listenHost, port).catch((err: unknown) => {
      server.close();
      if (attempt >= 5) throw err;
      return null;
    });
    if (!udp) continue;
    server.on('close', () => udp.close());
    state.attackerPort = port;
    return server;
  }
}

/** Every datagram on the attacker port, logged (its bytes are not: WebRTC's are binary). */
async function bindUdp(state: LabState, listenHost: string, port: number): Promise<UdpSocket> {
  const udp = createSocket(listenHost.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, listenHost, () => resolve());
  });
  udp.on('error', () => undefined);
  udp.on('message', () => {
    state.traffic.logAttacker({ at: new Date(state.now()).toISOString(), host: `udp:${port}`, method: 'UDP', path: '/datagram', referer: null, body: '' });
  });
  return udp;
}

async function listenTcp(state: LabState, listenHost: string): Promise<Server> {
  const server = createServer((raw, res) => {
    void (async () => {
      const req = await readRequest(raw);
      handleAttackerHost(state, `${hostnameOf(req.hostHeader) || '(no host)'}:${state.attackerPort}`, req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendText(res, 500, `Lab error: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  });
  countAttackerUpgrades(server, state, (hostHeader) => `${hostnameOf(hostHeader) || '(no host)'}:${state.attackerPort}`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenHost, () => resolve());
  });
  return server;
}
