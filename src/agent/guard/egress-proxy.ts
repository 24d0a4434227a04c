import { createServer, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, isIP, type AddressInfo, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { checkServerIdentity, rootCertificates, TLSSocket } from 'node:tls';
import { isAllowedUrl, shorten, type HostPolicy } from '../../shared/allowed-hosts';
import { EGRESS_LOCK_WORDS, pathWithoutQueryValues, type RequestEntry } from '../../shared/request-log';
import type { ChallengeHosts } from './challenge-hosts';
import type { MemoryCa } from '../../base/memory-ca';
import { EgressLog } from './egress-log';
import { resolverTarget, type ResolverTarget } from './resolver-rules';
import { hostOf, safeSink, type GuardEvent, type GuardEventSink } from './watchdogs/guard-event';

interface EgressProxyOptions {
  /**
   * The `--host-resolver-rules` the browser runs with. The proxy connects on the browser's behalf,
   * so it applies them itself (the lab: every name to 127.0.0.1); without rules names resolve by DNS.
   */
  hostResolverRules?: string;
  /** The profile's challenge hosts: let through too while open (the clerk holds the portal); their tunnels cut when they close. */
  challenges?: ChallengeHosts;
  /**
   * Full sight over https: the tunnels' TLS is ended here with the browser launch's certificate
   * authority (`MemoryCa`, which that browser alone trusts), so every request inside a tunnel is
   * read and judged whole like a plain-http one, and sent on over a TLS connection of the proxy's
   * own that verifies the portal's certificate. Without it (the desktop shell's session proxy) a
   * tunnel is judged by its host and port only.
   */
  tls?: EgressTls;
}

/** What the proxy needs to end the browser's TLS and to verify the portal's. */
export interface EgressTls {
  ca: MemoryCa;
  /**
   * Certificates (PEM) trusted for the portal besides Node's root store: only one the caller
   * names explicitly (the https lab's own CA). Never a way to accept a certificate that does not verify.
   */
  extraTrust?: readonly string[];
}

/** What the proxy read of a request besides its method and address, for the gate (as `CommitGate` reads a routed request). */
interface EgressRequest {
  headers: Readonly<Record<string, string>>;
  postData: string | null;
  postBytes: Uint8Array;
  contentType?: string | undefined;
}

/** A request's headers (repeated ones joined as HTTP joins them) and body, as the gate reads them. */
function egressRequest(headers: IncomingHttpHeaders, body: Uint8Array): EgressRequest {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return { headers: flat, postData: body.byteLength > 0 ? Buffer.from(body).toString('utf8') : null, postBytes: body, contentType: flat['content-type'] };
}

/**
 * The gate's side of the egress lock (`CommitGate`): asked about every request the proxy is about
 * to send on, plain http and (with `tls`) https alike, with its headers and body.
 */
interface EgressGate {
  atEgress(method: string, url: string, request?: EgressRequest): { ok: boolean };
}

/** Refusals held until the watchdogs give the proxy somewhere to report them. */
const MAX_HELD = 50;
/** The same refused request again within this time (Chromium retries a request on a fresh connection) is reported once. */
const REPEAT_MS = 2_000;
/** Refusals remembered for not reporting them twice (beyond this, each is reported). */
const MAX_REMEMBERED = 1_000;
/** Request headers that belong to the hop between the browser and the proxy, not to the portal. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);
/** `host:port` as a CONNECT request names it: a name or a bracketed IPv6 address, then the port. */
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[^\s:/?#@\\[\]]+):(\d{1,5})$/i;
/** The rule that lets through the portal's addresses and refuses every other. */
const HOSTS_RULE = 'egress-lock:portal-hosts';
/** The rule that let a challenge host through while the clerk held the portal. */
const CHALLENGE_RULE = 'egress-lock:challenge-hosts';
/** The rule that refuses a portal whose certificate does not verify. */
const CERTIFICATE_RULE = 'egress-lock:portal-certificate';
/** The rule that refuses a request whose body is too large to be read whole before it is judged. */
const BODY_RULE = 'egress-lock:body-size';
/** A body is read whole before the request is judged; past this it is refused, not sent unread. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The first byte of a TLS handshake record: what the browser sends first in an https or wss tunnel. */
const TLS_HANDSHAKE = 0x16;
/** How long a tunnel may stay silent before its first byte says what it carries. */
const FIRST_BYTE_MS = 30_000;

/** Where the requests of one tunnel go: the authority the CONNECT named, as judged. */
interface TunnelOrigin {
  scheme: 'https' | 'http';
  hostname: string;
  port: number;
  challenge: boolean;
}

/**
 * The egress lock: a forward proxy, one per browser context, that every request of the context
 * goes through (`proxy: { server, bypass: '<-loopback>' }`; without `<-loopback>` Chromium would
 * send loopback addresses past any proxy). It sits below the document, in the network stack,
 * so it holds for what the page-level locks cannot see: requests of SharedWorkers, keepalive
 * fetches and beacons a page sends while it unloads, redirect hops, and the browser's own traffic.
 *
 * It lets through only the portal profile's addresses, judged by `isAllowedUrl` like every other
 * lock (and its challenge hosts while the clerk holds the portal, `ChallengeHosts`): plain http requests (absolute-form) by their whole address, tunnels (CONNECT, which
 * Chromium uses for https, wss and ws) by `host:port` for a scheme the profile allows, and then,
 * with `tls`, every request inside a tunnel by its whole address, read whole and judged at the
 * commit gate like a plain-http one (`openTunnel`). IP
 * literals, other ports, other names are refused: an http request gets no answer at all (a
 * network error; nothing is answered in the attacker's name), a tunnel gets 403. Each refusal is
 * reported as `request_blocked`. What was judged is what is connected to: the normalised host
 * and port, mapped by the browser's resolver rules.
 *
 * Every request it lets through and every one it refuses also goes into its request log
 * (`EgressLog`: method, host, port, path without query values, outcome, rule, repeats counted),
 * which the run loop takes into each step it records. A plain-http request the commit gate
 * refuses here is the gate's to record (it does, as data), so it is not logged twice.
 */
export class EgressProxy {
  private sink: GuardEventSink | undefined;
  private readonly held: GuardEvent[] = [];
  private readonly recent = new Map<string, number>();
  private readonly tunnels = new Set<Socket | Duplex>();
  /** Tunnels to a challenge host, cut when the challenge hosts close. */
  private readonly challengeTunnels = new Set<() => void>();
  private refusedCount = 0;
  private gate: EgressGate | undefined;
  private readonly log = new EgressLog();
  /** Reads the requests inside tunnels (decrypted, or a ws:// tunnel's plain http); never listens itself. */
  private readonly inner = createServer();
  /** The origin each connection handed to `inner` belongs to. */
  private readonly origins = new WeakMap<Socket | Duplex, TunnelOrigin>();
  /** The proxy's own TLS connections to the portal, kept alive between requests; verifies the portal. */
  private readonly upstreamAgent: HttpsAgent | undefined;

  private constructor(
    private readonly server: Server,
    private readonly profile: HostPolicy,
    private readonly options: EgressProxyOptions,
  ) {
    this.inner.on('request', (req: IncomingMessage, res: ServerResponse) => this.fromTunnel(req, res));
    this.inner.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgradeInTunnel(req, heldSocket(socket), head));
    this.inner.on('clientError', (_err, socket: Duplex) => socket.destroy());
    if (options.tls) {
      const extra = options.tls.extraTrust ?? [];
      // Node's root store; with an explicit extra CA, the store and that CA (`ca` replaces the default store).
      this.upstreamAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16, rejectUnauthorized: true, ...(extra.length > 0 ? { ca: [...rootCertificates, ...extra] } : {}) });
    }
  }

  /** Starts a proxy for one portal on a free loopback port. */
  static async start(profile: HostPolicy, options: EgressProxyOptions = {}): Promise<EgressProxy> {
    const server = createServer();
    const proxy = new EgressProxy(server, profile, options);
    options.challenges?.onClose(() => {
      for (const cut of [...proxy.challengeTunnels]) cut();
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.forward(req, res));
    // Node's server lets go of a CONNECT's or an upgrade's socket, error listener included: a browser that resets it
    // (a page closed, a process killed) must not throw in the process that runs the proxy.
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => proxy.tunnel(req, heldSocket(socket), head));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex) => proxy.refuseUpgrade(req, heldSocket(socket)));
    server.on('clientError', (_err, socket: Duplex) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The address a context is told to use: `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How many requests and tunnels it refused. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Whether it ends the browser's TLS and sees https requests whole (`tls`). */
  get seesHttps(): boolean {
    return this.options.tls !== undefined;
  }

  /**
   * Every request it forwards is judged by the run's commit gate too: one that can commit
   * something passes only when the page's request routing admitted it (workers and pages as they
   * unload never reach that routing). Plain http always; https when the proxy ends TLS (`tls`),
   * else a tunnel shows the proxy only a host and port.
   */
  useGate(gate: EgressGate): void {
    this.gate = gate;
  }

  /** What it let through and refused since the last call, for the step being recorded. */
  takeRequests(): RequestEntry[] {
    return this.log.take();
  }

  /** Reports refusals to `sink` from now on; refusals made before are reported first. */
  reportTo(sink: GuardEventSink): void {
    this.sink = safeSink(sink);
    for (const event of this.held.splice(0)) this.sink(event);
  }

  /** Stops listening and cuts every connection, tunnels included. */
  async close(): Promise<void> {
    for (const socket of this.tunnels) socket.destroy();
    this.tunnels.clear();
    this.upstreamAgent?.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** A plain http request in absolute form (`GET http://host:port/path`). */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    const address = req.url ?? '';
    if (!/^http:\/\//i.test(address)) {
      // Not a browser's proxy request (origin-form, or https in absolute form): nothing to forward.
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('Portal Desk egress proxy: absolute http addresses and CONNECT only');
      return;
    }
    void this.send(req, res, address, { kind: 'http', challenge: false });
  }

  /** A request read inside a tunnel (origin-form): its address is the tunnel's origin and its path. */
  private fromTunnel(req: IncomingMessage, res: ServerResponse): void {
    const origin = this.origins.get(req.socket);
    const path = req.url ?? '';
    if (!origin || !path.startsWith('/')) {
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('Portal Desk egress proxy: an origin-form request was expected in the tunnel');
      return;
    }
    void this.send(req, res, `${origin.scheme}://${authorityOf(origin)}${path}`, { kind: origin.scheme === 'https' ? 'https' : 'http', challenge: origin.challenge });
  }

  /**
   * Judges one request by its whole address (the portal's hosts), reads its body whole, asks the
   * gate with its method, address, headers and body, and only then sends it on: plain http as it
   * came, https over the proxy's own verified TLS connection to the portal.
   */
  private async send(req: IncomingMessage, res: ServerResponse, address: string, via: { kind: 'http' | 'https'; challenge: boolean }): Promise<void> {
    const method = req.method ?? 'GET';
    const seen = (href: string): SeenRequest => ({ ...requestSeen(method, href), kind: via.kind });
    const check = this.hostCheck(address);
    if (!check.ok) {
      this.log.add({ ...seen(address), outcome: 'refused', rule: HOSTS_RULE, reason: check.reason });
      this.refuse(`${method} ${address}`, address, `Stopped a ${method} request to ${hostOf(address)} ${EGRESS_LOCK_WORDS}: ${check.reason}`);
      req.socket.destroy();
      return;
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === 'too large' || body === 'broken') {
      if (body === 'too large') {
        const reason = `its body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB, too large to be read whole before it is judged`;
        this.log.add({ ...seen(check.href), outcome: 'refused', rule: BODY_RULE, reason });
        this.refuse(`${method} ${check.href}`, check.href, `Stopped a ${method} request to ${hostOf(check.href)} ${EGRESS_LOCK_WORDS}: ${reason}`);
      }
      req.socket.destroy();
      return;
    }
    if (this.gate && !this.gate.atEgress(method, check.href, egressRequest(req.headers, body)).ok) {
      // The gate records its refusal itself (as data), so it is not logged here twice.
      this.refusedCount += 1;
      req.socket.destroy();
      return;
    }
    const url = new URL(check.href);
    const target = this.target(url.hostname, portOf(url));
    if (target.kind === 'not-found') {
      this.log.add({ ...seen(check.href), outcome: 'refused', rule: RESOLVER_RULE, reason: NOT_FOUND });
      req.socket.destroy();
      return;
    }
    const rule = check.challenge || via.challenge ? CHALLENGE_RULE : HOSTS_RULE;
    const headers = { ...forwardHeaders(req.headers), host: url.host, ...(body.length > 0 || req.headers['content-length'] !== undefined ? { 'content-length': String(body.length) } : {}) };
    delete headers['transfer-encoding'];
    const upstream = this.upstreamRequest(url, target, method, headers);
    let answered = false;
    upstream.on('response', (answer) => {
      answered = true;
      this.log.add({ ...seen(check.href), outcome: 'sent', rule });
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) return res.destroy();
      const bad = certificateProblem(err);
      if (bad) {
        const reason = `the portal's certificate for ${url.hostname} does not verify (${bad}); nothing was sent`;
        this.log.add({ ...seen(check.href), outcome: 'refused', rule: CERTIFICATE_RULE, reason });
        this.refuse(`CERT ${url.host}`, check.href, `Stopped a ${method} request to ${url.host} ${EGRESS_LOCK_WORDS}: ${reason}`);
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`Portal Desk egress lock: ${reason}.`);
        return;
      }
      this.log.add({ ...seen(check.href), outcome: 'sent', rule });
      if (res.headersSent) res.destroy();
      else req.socket.destroy();
    });
    // The browser gave up (a refused download, a closed page): the portal stops sending too.
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  }

  /** The request to the portal: plain http to the mapped target, or https over a connection that verifies the portal's certificate for its name. */
  private upstreamRequest(url: URL, target: Exclude<ResolverTarget, { kind: 'not-found' }>, method: string, headers: OutgoingHttpHeaders): ClientRequest {
    const base = { host: target.hostname, port: target.port, method, path: `${url.pathname}${url.search}`, headers, setHost: false };
    if (url.protocol === 'http:') return httpRequest({ ...base, agent: false });
    const name = url.hostname.replace(/^\[|\]$/g, '');
    return httpsRequest({
      ...base,
      agent: this.upstreamAgent,
      // Verified for the portal's own name, wherever the resolver rules sent the connection.
      ...(isIp(name) ? {} : { servername: name }),
      checkServerIdentity: (_host, cert) => checkServerIdentity(name, cert),
      rejectUnauthorized: true,
    });
  }

  /** A tunnel (`CONNECT host:port`): https, wss and ws go this way. */
  private tunnel(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const authority = req.url ?? '';
    const match = AUTHORITY.exec(authority);
    const verdict = match ? this.judgeTunnel(match[1]!, match[2]!) : { ok: false as const, reason: `“${shorten(authority)}” is not a host and port` };
    if (!verdict.ok) {
      this.log.add({ ...tunnelSeen(match, authority), outcome: 'refused', rule: HOSTS_RULE, reason: verdict.reason });
      this.refuse(`CONNECT ${authority}`, authority, `Stopped a connection to ${shorten(authority, 80)} ${EGRESS_LOCK_WORDS}: ${verdict.reason}`, 'never');
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const target = this.target(verdict.hostname, verdict.port);
    if (target.kind === 'not-found') {
      this.log.add({ kind: 'tunnel', method: 'CONNECT', host: verdict.hostname, port: verdict.port, path: null, outcome: 'refused', rule: RESOLVER_RULE, reason: NOT_FOUND });
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.log.add({ kind: 'tunnel', method: 'CONNECT', host: verdict.hostname, port: verdict.port, path: null, outcome: 'sent', rule: verdict.challenge ? CHALLENGE_RULE : HOSTS_RULE });
    if (this.options.tls) this.openTunnel(socket, head, verdict, this.options.tls);
    else this.blindTunnel(socket, head, verdict.challenge, target);
  }

  /**
   * Ends the tunnel here: answers the CONNECT, then reads what the browser sends in it. TLS (https,
   * wss) is ended with a leaf of the launch's CA for the judged name; plain http (a ws:// socket)
   * only where the profile allows http for that address. Either way its requests are read one by
   * one by `inner` and judged whole (`send`); nothing in it reaches the portal unread.
   */
  private openTunnel(socket: Duplex, head: Buffer, verdict: { hostname: string; port: number; challenge: boolean; https: boolean; http: boolean }, tls: EgressTls): void {
    this.tunnels.add(socket);
    const connections = new Set<Duplex>([socket]);
    const cut = (): void => {
      for (const s of connections) {
        s.destroy();
        this.tunnels.delete(s);
      }
      this.challengeTunnels.delete(cut);
    };
    if (verdict.challenge) this.challengeTunnels.add(cut);
    socket.on('error', cut);
    socket.on('close', cut);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const timer = setTimeout(cut, FIRST_BYTE_MS);
    const begin = (first: Buffer): void => {
      clearTimeout(timer);
      socket.removeListener('data', begin);
      // What the first byte was read from, joined again with it (a net.Socket cannot be given back a byte it read).
      const stream = rejoined(socket, first);
      connections.add(stream);
      const origin = { hostname: verdict.hostname, port: verdict.port, challenge: verdict.challenge };
      if (first[0] === TLS_HANDSHAKE && verdict.https) {
        stream.pause();
        void tls.ca.contextFor(verdict.hostname).then(
          (secureContext) => {
            if (socket.destroyed) return;
            const secure = new TLSSocket(stream, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
            connections.add(secure);
            this.tunnels.add(secure);
            secure.on('error', cut);
            this.origins.set(secure, { ...origin, scheme: 'https' });
            this.inner.emit('connection', secure);
          },
          () => cut(),
        );
      } else if (verdict.http) {
        this.origins.set(stream, { ...origin, scheme: 'http' });
        this.inner.emit('connection', stream);
      } else {
        this.log.add({ kind: 'tunnel', method: 'CONNECT', host: verdict.hostname, port: verdict.port, path: null, outcome: 'refused', rule: HOSTS_RULE, reason: first[0] === TLS_HANDSHAKE ? 'TLS in a tunnel to an address allowed for http only' : 'plain http in a tunnel to an address allowed for https only' });
        cut();
      }
    };
    if (head.length > 0) begin(head);
    else socket.on('data', begin);
  }

  /** The tunnel as a byte pipe to the portal, judged by its host and port only (no `tls`). */
  private blindTunnel(socket: Duplex, head: Buffer, challenge: boolean, target: Exclude<ResolverTarget, { kind: 'not-found' }>): void {
    this.tunnels.add(socket);
    const upstream = connect({ host: target.hostname, port: target.port });
    this.tunnels.add(upstream);
    const cut = (): void => {
      socket.destroy();
      upstream.destroy();
      this.tunnels.delete(socket);
      this.tunnels.delete(upstream);
      this.challengeTunnels.delete(cut);
    };
    if (challenge) this.challengeTunnels.add(cut);
    upstream.on('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => (upstream.connecting ? socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n') : cut()));
    upstream.on('close', cut);
    socket.on('error', cut);
    socket.on('close', cut);
  }

  /**
   * A WebSocket's opening handshake inside a tunnel (wss, or ws where http is allowed): judged
   * like any request (the portal's hosts, then the gate, as a GET), then joined to the portal's
   * answer; its frames then pass as they are (the page's socket routing sees them).
   */
  private upgradeInTunnel(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = this.origins.get(req.socket);
    const path = req.url ?? '';
    if (!origin || !path.startsWith('/')) return void socket.destroy();
    const address = `${origin.scheme}://${authorityOf(origin)}${path}`;
    const method = req.method ?? 'GET';
    const seen = { ...requestSeen(method, address), kind: 'upgrade' as const };
    const check = this.hostCheck(address);
    if (!check.ok) {
      this.log.add({ ...seen, outcome: 'refused', rule: HOSTS_RULE, reason: check.reason });
      this.refuse(`UPGRADE ${address}`, address, `Stopped a connection upgrade to ${hostOf(address)} ${EGRESS_LOCK_WORDS}: ${check.reason}`);
      return void socket.destroy();
    }
    if (this.gate && !this.gate.atEgress(method, check.href, egressRequest(req.headers, new Uint8Array())).ok) {
      this.refusedCount += 1;
      return void socket.destroy();
    }
    const url = new URL(check.href);
    const target = this.target(url.hostname, portOf(url));
    if (target.kind === 'not-found') {
      this.log.add({ ...seen, outcome: 'refused', rule: RESOLVER_RULE, reason: NOT_FOUND });
      return void socket.destroy();
    }
    const headers: OutgoingHttpHeaders = { ...forwardHeaders(req.headers), host: url.host, connection: 'Upgrade', upgrade: req.headers.upgrade ?? 'websocket' };
    const upstream = this.upstreamRequest(url, target, method, headers);
    upstream.on('upgrade', (answer: IncomingMessage, portal: Socket, portalHead: Buffer) => {
      this.log.add({ ...seen, outcome: 'sent', rule: origin.challenge ? CHALLENGE_RULE : HOSTS_RULE });
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]!}: ${answer.rawHeaders[i + 1]!}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (portalHead.length > 0) socket.write(portalHead);
      if (head.length > 0) portal.write(head);
      portal.pipe(socket);
      socket.pipe(portal);
      portal.on('error', () => socket.destroy());
      socket.on('error', () => portal.destroy());
      portal.on('close', () => socket.destroy());
      socket.on('close', () => portal.destroy());
    });
    upstream.on('response', (answer) => {
      // The portal declined the upgrade: its answer goes back as it is, and the connection ends.
      this.log.add({ ...seen, outcome: 'sent', rule: origin.challenge ? CHALLENGE_RULE : HOSTS_RULE });
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]!}: ${answer.rawHeaders[i + 1]!}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      answer.pipe(socket);
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      const bad = certificateProblem(err);
      if (bad) {
        const reason = `the portal's certificate for ${url.hostname} does not verify (${bad}); nothing was sent`;
        this.log.add({ ...seen, outcome: 'refused', rule: CERTIFICATE_RULE, reason });
        this.refuse(`CERT ${url.host}`, check.href, `Stopped a connection upgrade to ${url.host} ${EGRESS_LOCK_WORDS}: ${reason}`);
      }
      socket.destroy();
    });
    upstream.end();
  }

  /** An Upgrade in absolute form: Chromium tunnels WebSockets instead, so this is never forwarded. */
  private refuseUpgrade(req: IncomingMessage, socket: Duplex): void {
    const address = req.url ?? '';
    const check = isAllowedUrl(address, this.profile);
    const seen = { ...requestSeen('UPGRADE', address), kind: 'upgrade' as const, outcome: 'refused' as const };
    if (!check.ok) {
      this.log.add({ ...seen, rule: HOSTS_RULE, reason: check.reason });
      this.refuse(`UPGRADE ${address}`, address, `Stopped a connection upgrade to ${hostOf(address)} ${EGRESS_LOCK_WORDS}: ${check.reason}`);
    } else {
      this.log.add({ ...seen, rule: 'egress-lock:upgrade', reason: 'the browser tunnels its sockets; an upgrade in absolute form is never forwarded' });
    }
    socket.destroy();
  }

  /**
   * A tunnel is allowed to `host:port` when that is a portal address for https, or for http when
   * the profile allows http (a ws:// socket). The host is judged and connected to as the URL
   * parser normalises it (case, IDNA, numeric IPv4 forms, which then count as IP literals).
   */
  private judgeTunnel(host: string, port: string): { ok: true; hostname: string; port: number; challenge: boolean; https: boolean; http: boolean } | { ok: false; reason: string } {
    const schemes = this.profile.allowHttp ? (['https', 'http'] as const) : (['https'] as const);
    let reason = '';
    let found: { hostname: string; port: number; challenge: boolean } | undefined;
    const allowed = { https: false, http: false };
    for (const scheme of schemes) {
      const check = this.hostCheck(`${scheme}://${host}:${port}/`);
      if (check.ok) {
        const url = new URL(check.href);
        found ??= { hostname: url.hostname, port: portOf(url), challenge: check.challenge === true };
        allowed[scheme] = true;
      } else {
        reason ||= check.reason;
      }
    }
    return found ? { ok: true, ...found, ...allowed } : { ok: false, reason };
  }

  /** The portal's addresses; the challenge hosts too while they are open. */
  private hostCheck(address: string): ReturnType<ChallengeHosts['check']> {
    return this.options.challenges ? this.options.challenges.check(address) : isAllowedUrl(address, this.profile);
  }

  private target(hostname: string, port: number): ResolverTarget {
    return resolverTarget(this.options.hostResolverRules, hostname.replace(/^\[|\]$/g, ''), port);
  }

  /**
   * Counts a refusal and reports it, once: the same request again within `REPEAT_MS`, or a tunnel
   * to the same `host:port` at any time (a refused tunnel carried nothing but its name; Chromium
   * itself asks for some, such as its autofill server, on every form page) is not reported again.
   */
  private refuse(key: string, url: string, detail: string, repeats: 'after a while' | 'never' = 'after a while'): void {
    this.refusedCount += 1;
    const now = Date.now();
    for (const [k, until] of this.recent) if (until < now) this.recent.delete(k);
    if (this.recent.has(key)) return;
    if (this.recent.size < MAX_REMEMBERED) this.recent.set(key, repeats === 'never' ? Number.POSITIVE_INFINITY : now + REPEAT_MS);
    const event: GuardEvent = { type: 'request_blocked', url, detail };
    if (this.sink) this.sink(event);
    else if (this.held.length < MAX_HELD) this.held.push(event);
  }
}

/** The rule that refuses a name the browser's resolver rules send nowhere (`~NOTFOUND`). */
const RESOLVER_RULE = 'egress-lock:resolver';
const NOT_FOUND = "the browser's host-resolver rules resolve this name nowhere";

/** A request as the log keeps it: method, host, port, path without query values. */
type SeenRequest = { kind: 'http' | 'https' | 'upgrade'; method: string; host: string; port: number | null; path: string | null };

function requestSeen(method: string, address: string): SeenRequest {
  try {
    const url = new URL(address);
    return { kind: url.protocol === 'https:' ? 'https' : 'http', method, host: url.hostname, port: portOf(url), path: pathWithoutQueryValues(`${url.pathname}${url.search}`) };
  } catch {
    return { kind: 'http', method, host: shorten(address, 80), port: null, path: null };
  }
}

/** A socket the http server handed over, destroyed (not thrown) when it fails. */
function heldSocket(socket: Duplex): Duplex {
  socket.on('error', () => socket.destroy());
  return socket;
}

/** A stream that reads `first`, then whatever `socket` reads next, and writes to `socket`. */
function rejoined(socket: Duplex, first: Buffer): Duplex {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk: Buffer, _encoding, done) => void socket.write(chunk, done),
    final: (done) => void socket.end(done),
    destroy: (err, done) => {
      socket.destroy();
      done(err);
    },
  });
  stream.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('close', () => stream.destroy());
  return stream;
}

/** `host:port` of a tunnel's origin, as an address writes it. */
function authorityOf(origin: TunnelOrigin): string {
  const host = origin.hostname.includes(':') && !origin.hostname.startsWith('[') ? `[${origin.hostname}]` : origin.hostname;
  return `${host}:${origin.port}`;
}

function isIp(hostname: string): boolean {
  return isIP(hostname) !== 0;
}

/** A request's body, read whole (the gate judges it before any of it leaves), or why not. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too large' | 'broken'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > limit) return 'too large';
      chunks.push(buf);
    }
  } catch {
    return 'broken';
  }
  return Buffer.concat(chunks);
}

/** Node's errors for a certificate that does not verify (chain, name, dates), as one phrase; null for any other error. */
function certificateProblem(err: NodeJS.ErrnoException): string | null {
  const code = err.code ?? '';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `it is not for this name: ${err.message}`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ISSUER|CHAIN|SIGNATURE/.test(code)) return `${code}: ${err.message}`;
  return null;
}

/** A tunnel as the log keeps it: the host and port it named, or what it named when that was not one. */
function tunnelSeen(match: RegExpExecArray | null, authority: string): { kind: 'tunnel'; method: 'CONNECT'; host: string; port: number | null; path: null } {
  if (!match) return { kind: 'tunnel', method: 'CONNECT', host: shorten(authority, 80), port: null, path: null };
  return { kind: 'tunnel', method: 'CONNECT', host: match[1]!.toLowerCase().replace(/^\[|\]$/g, ''), port: Number(match[2]), path: null };
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** The browser's request headers without the hop-by-hop ones (and those the Connection header names). */
function forwardHeaders(headers: IncomingMessage['headers']): OutgoingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((h) => h.trim()).filter(Boolean));
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The portal's response headers, as sent (order and repeats kept), without the hop-by-hop ones. */
function responseHeaders(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const h of raw[i + 1]!.toLowerCase().split(',')) named.add(h.trim());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_HEADERS.has(name) || named.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
