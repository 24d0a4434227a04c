import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { MemoryCa } from '../src/base/memory-ca';
import { countAttackerUpgrades, handleAttackerHost } from './attacks/attacker-host';
import { listenAttackerPort } from './attacks/other-port';
import { handleAttackEndpoint, isAttackEndpoint } from './attacks/portal-endpoints';
import { recordPortalPost } from './attacks/portal-posts';
import { handleCaptchaHost } from './captcha';
import { handleControl } from './control-api';
import { classifyHost, hostnameOf, originOf, PORTAL_HOSTS, type PortalId } from './hosts';
import { readRequest, sendText } from './http';
import type { Lab } from './lab';
import { handlePhone } from './phone';
import { handlePortal } from './portal/router';
import { LabState } from './state';
import type { LabVariantInput } from './variants';

export interface LabOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Fix the control API token (default: random per lab), e.g. for a lab started by the CLI. */
  controlToken?: string;
  /** Clock for code expiry and timestamps (tests move time forward). */
  now?: () => number;
  /**
   * Serve the lab's hosts over https (its second, attacker port stays http), with certificates
   * of a certificate authority made at lab start (`lab.tlsCa`), which a run must be told to trust
   * explicitly (`launchChromium({ portalCa })`). Default: http.
   */
  tls?: boolean;
}

/** Starts the lab: one loopback HTTP server that answers every lab hostname by its Host header. */
export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const listenHost = options.host ?? '127.0.0.1';
  const resolverTarget = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost;
  const state = new LabState(options.now ?? Date.now, options.controlToken ?? randomBytes(24).toString('base64url'));

  // The second port first: attack pages name it ("the portal on another port").
  const attackerServer = await listenAttackerPort(state, listenHost);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendText(res, 500, `Lab error: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  };
  const ca = options.tls ? await MemoryCa.make() : null;
  // Over https, each name the browser asks for gets a certificate of the lab's CA for that name.
  const server = ca
    ? createHttpsServer({ SNICallback: (name, done) => void ca.contextFor(name).then((c) => done(null, c), (err: Error) => done(err)) }, handler)
    : createServer(handler);
  if (ca) state.scheme = 'https';

  const lab: Lab = {
    get port() {
      return state.port;
    },
    host: listenHost,
    hostResolverRules: `MAP * ${resolverTarget}`,
    tlsCa: ca?.certPem ?? null,
    scheme: ca ? 'https' : 'http',
    controlToken: state.controlToken,
    origin: (portal: PortalId) => originOf(PORTAL_HOSTS[portal], state.port, state.scheme),
    originOf: (hostname: string) => originOf(hostname, state.port, state.scheme),
    configure: (clientId: string, variant: LabVariantInput = {}) => state.clients.configure(clientId, variant),
    variant: (clientId) => state.clients.get(clientId).variant,
    submissions: (filter) => state.submissions.list(filter),
    applications: (clientId) => state.submissions.applications(clientId),
    resets: (clientId) => state.clients.peek(clientId)?.resets ?? 0,
    latestOtp: (clientId) => state.otp.latest(clientId),
    solveCaptcha: (clientId) => {
      state.clients.get(clientId).captchaSolved = true;
    },
    attackerRequests: () => state.traffic.attackerRequests(),
    get attackerPort() {
      return state.attackerPort;
    },
    attackRecords: () => state.attacks.records(),
    requestLog: () => state.traffic.requestLog(),
    expireSession: (clientId) => {
      state.sessions.expireClient(clientId);
    },
    reset: () => state.reset(),
    stop: async () => {
      await Promise.all(
        [server, attackerServer].map(
          (s) =>
            new Promise<void>((resolve, reject) => {
              s.close((err) => (err ? reject(err) : resolve()));
              s.closeAllConnections();
            }),
        ),
      );
    },
  };

  async function serve(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const req = await readRequest(raw);
    const host = classifyHost(req.hostHeader);
    let clientId: string | null = null;
    switch (host.kind) {
      case 'portal':
        clientId = isAttackEndpoint(req.path) ? await handleAttackEndpoint(state, host.portal, req, res) : await handlePortal(state, host.portal, req, res);
        recordPortalPost(state, host.portal, req, clientId);
        break;
      case 'phone':
        handlePhone(state, req, res);
        break;
      case 'captcha':
        handleCaptchaHost(req, res);
        break;
      case 'control':
        handleControl(lab, req, res);
        break;
      case 'attacker':
        handleAttackerHost(state, host.host, req, res);
        break;
    }
    state.traffic.logRequest({
      at: new Date(state.now()).toISOString(),
      host: hostnameOf(req.hostHeader),
      method: req.method,
      path: req.path,
      status: res.statusCode,
      clientId,
    });
  }

  countAttackerUpgrades(server, state, (hostHeader) => {
    const host = classifyHost(hostHeader);
    return host.kind === 'attacker' ? host.host : null;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      attackerServer.close();
      reject(err);
    });
    server.listen(options.port ?? 0, listenHost, () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  return lab;
}
