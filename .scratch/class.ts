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
    this.inner.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgradeInTunnel(req, socket, head));
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
    if (this.gate && !this.gate.atEgress(method, check.href, { headers: req.headers, body }).ok) {
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
  private openTunnel(socket: Duplex, head: Buffer, verdict: { hostname: string; port: number; challenge: boolean; http: boolean }, tls: EgressTls): void {
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
      socket.pause();
      socket.unshift(first);
      const origin = { hostname: verdict.hostname, port: verdict.port, challenge: verdict.challenge };
      if (first[0] === TLS_HANDSHAKE) {
        void tls.ca.contextFor(verdict.hostname).then(
          (secureContext) => {
            if (socket.destroyed) return;
            const secure = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
            connections.add(secure);
            this.tunnels.add(secure);
            secure.on('error', cut);
            this.origins.set(secure, { ...origin, scheme: 'https' });
            this.inner.emit('connection', secure);
          },
          () => cut(),
        );
      } else if (verdict.http) {
        this.origins.set(socket, { ...origin, scheme: 'http' });
        this.inner.emit('connection', socket);
      } else {
        this.log.add({ kind: 'tunnel', method: 'CONNECT', host: verdict.hostname, port: verdict.port, path: null, outcome: 'refused', rule: HOSTS_RULE, reason: 'plain http in a tunnel to an https-only portal' });
        cut();
      }
    };
    if (head.length > 0) begin(head);
    else socket.once('data', begin);
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
    if (this.gate && !this.gate.atEgress(method, check.href, { headers: req.headers, body: new Uint8Array() }).ok) {
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

