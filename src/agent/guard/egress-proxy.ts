import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isAllowedUrl, shorten, type HostPolicy } from '../../shared/allowed-hosts';
import { EGRESS_LOCK_WORDS, pathWithoutQueryValues, type RequestEntry } from '../../shared/request-log';
import type { ChallengeHosts } from './challenge-hosts';
import type { CommitGate } from './commit-gate';
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

/**
 * The egress lock: a forward proxy, one per browser context, that every request of the context
 * goes through (`proxy: { server, bypass: '<-loopback>' }`; without `<-loopback>` Chromium would
 * send loopback addresses past any proxy). It sits below the document, in the network stack,
 * so it holds for what the page-level locks cannot see: requests of SharedWorkers, keepalive
 * fetches and beacons a page sends while it unloads, redirect hops, and the browser's own traffic.
 *
 * It lets through only the portal profile's addresses, judged by `isAllowedUrl` like every other
 * lock (and its challenge hosts while the clerk holds the portal, `ChallengeHosts`): plain http requests (absolute-form) by their whole address, tunnels (CONNECT, which
 * Chromium uses for https, wss and ws) by `host:port` for a scheme the profile allows. IP
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
  private gate: CommitGate | undefined;
  private readonly log = new EgressLog();

  private constructor(
    private readonly server: Server,
    private readonly profile: HostPolicy,
    private readonly options: EgressProxyOptions,
  ) {}

  /** Starts a proxy for one portal on a free loopback port. */
  static async start(profile: HostPolicy, options: EgressProxyOptions = {}): Promise<EgressProxy> {
    const server = createServer();
    const proxy = new EgressProxy(server, profile, options);
    options.challenges?.onClose(() => {
      for (const cut of [...proxy.challengeTunnels]) cut();
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.forward(req, res));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => proxy.tunnel(req, socket, head));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex) => proxy.refuseUpgrade(req, socket));
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

  /**
   * Plain-http requests are judged by the run's commit gate too: one that can commit something
   * passes only when the page's request routing admitted it (workers and pages as they unload
   * never reach that routing). Tunnels (https) show the proxy only a host and port.
   */
  useGate(gate: CommitGate): void {
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
    const method = req.method ?? 'GET';
    const check = this.hostCheck(address);
    if (!check.ok) {
      this.log.add({ ...httpSeen(method, address), outcome: 'refused', rule: HOSTS_RULE, reason: check.reason });
      this.refuse(`${method} ${address}`, address, `Stopped a ${method} request to ${hostOf(address)} ${EGRESS_LOCK_WORDS}: ${check.reason}`);
      req.socket.destroy();
      return;
    }
    if (this.gate && !this.gate.atEgress(method, check.href).ok) {
      this.refusedCount += 1;
      req.socket.destroy();
      return;
    }
    const url = new URL(check.href);
    const target = this.target(url.hostname, portOf(url));
    if (target.kind === 'not-found') {
      this.log.add({ ...httpSeen(method, check.href), outcome: 'refused', rule: RESOLVER_RULE, reason: NOT_FOUND });
      req.socket.destroy();
      return;
    }
    this.log.add({ ...httpSeen(method, check.href), outcome: 'sent', rule: check.challenge ? CHALLENGE_RULE : HOSTS_RULE });
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...forwardHeaders(req.headers), host: url.host }, agent: false, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.rawHeaders));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : req.socket.destroy()));
    // The browser gave up (a refused download, a closed page): the portal stops sending too.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
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
    if (verdict.challenge) this.challengeTunnels.add(cut);
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

  /** An Upgrade in absolute form: Chromium tunnels WebSockets instead, so this is never forwarded. */
  private refuseUpgrade(req: IncomingMessage, socket: Duplex): void {
    const address = req.url ?? '';
    const check = isAllowedUrl(address, this.profile);
    const seen = { ...httpSeen('UPGRADE', address), kind: 'upgrade' as const, outcome: 'refused' as const };
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
  private judgeTunnel(host: string, port: string): { ok: true; hostname: string; port: number; challenge: boolean } | { ok: false; reason: string } {
    const schemes = this.profile.allowHttp ? ['https', 'http'] : ['https'];
    let reason = '';
    for (const scheme of schemes) {
      const check = this.hostCheck(`${scheme}://${host}:${port}/`);
      if (check.ok) {
        const url = new URL(check.href);
        return { ok: true, hostname: url.hostname, port: portOf(url), challenge: check.challenge === true };
      }
      reason ||= check.reason;
    }
    return { ok: false, reason };
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

/** A plain request as the log keeps it: method, host, port, path without query values. */
function httpSeen(method: string, address: string): { kind: 'http'; method: string; host: string; port: number | null; path: string | null } {
  try {
    const url = new URL(address);
    return { kind: 'http', method, host: url.hostname, port: portOf(url), path: pathWithoutQueryValues(`${url.pathname}${url.search}`) };
  } catch {
    return { kind: 'http', method, host: shorten(address, 80), port: null, path: null };
  }
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
