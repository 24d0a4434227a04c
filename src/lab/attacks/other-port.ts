import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostnameOf } from '../hosts';
import { readRequest, sendText } from '../http';
import type { LabState } from '../state';
import { countAttackerUpgrades, handleAttackerHost } from './attacker-host';

/**
 * The lab's second port: "the portal's own host on another port" has to land somewhere to be
 * counted. Every request that reaches it is an attacker request, whatever its Host header says
 * (it is logged as `host:port`).
 */
export async function listenAttackerPort(state: LabState, listenHost: string): Promise<Server> {
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
  state.attackerPort = (server.address() as AddressInfo).port;
  return server;
}
