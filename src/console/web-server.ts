import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { describeZodError } from '../agent/case/zod-message';
import { ConsoleRequestEnvelope, type ConsoleEvent } from '../shared/console-api';
import { RequestChecks } from './request-checks';
import { errorMessage } from '../base/error-text';

/** The built renderer (`npm run build`), served as the browser console. */
const DEFAULT_RENDERER_DIR = resolve(__dirname, '../../out/renderer');

/** What the server needs of the console service (ConsoleService has it). */
interface ConsoleEndpoint {
  handle(method: string, params: unknown): Promise<unknown>;
  subscribe(listener: (event: ConsoleEvent) => void): () => void;
}

interface ConsoleServerOptions {
  service: ConsoleEndpoint;
  /** 0 (default): a free port. */
  port?: number;
  rendererDir?: string;
  /** Default: 32 random bytes. */
  token?: string;
}

export interface ConsoleServer {
  /** `http://127.0.0.1:PORT/?token=…`: the one URL that opens the console. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;
/** A socket this far behind gets no live frames until it catches up (steps and run events still go). */
const FRAME_BACKLOG_BYTES = 4 * 1024 * 1024;
const PING_MS = 30_000;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/**
 * The browser console: the built renderer and a WebSocket bound to the console service, on
 * 127.0.0.1 only, behind a random token (see RequestChecks for what every request must show).
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const rendererDir = resolve(options.rendererDir ?? DEFAULT_RENDERER_DIR);
  // Set once the port is known; requests before that get 503.
  const ready: { checks?: RequestChecks } = {};
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  const server: Server = createServer((req, res) => {
    if (!ready.checks) return refuse(res, 503, 'Starting');
    // Node keeps the first of two Host headers; a request that sends two is refused, never guessed at.
    if (hostHeaderCount(req) !== 1) return refuse(res, 400, 'Exactly one Host header');
    serveHttp(req, res, ready.checks, rendererDir);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const problem = ready.checks ? (hostHeaderCount(req) !== 1 ? 'Exactly one Host header' : upgradeProblem(req, ready.checks)) : 'Starting';
    if (problem) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${problem}\n`);
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => bindSocket(ws, options.service));
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The console server has no TCP address');
  const checks = new RequestChecks(address.port, options.token);
  ready.checks = checks;

  const pinger = setInterval(() => {
    for (const ws of sockets.clients) {
      const alive = ws as WebSocket & { portalDeskAlive?: boolean };
      if (alive.portalDeskAlive === false) {
        ws.terminate();
        continue;
      }
      alive.portalDeskAlive = false;
      ws.ping();
    }
  }, PING_MS);
  pinger.unref();

  const token = checks.token;
  return {
    url: `http://127.0.0.1:${address.port}/?token=${encodeURIComponent(token)}`,
    port: address.port,
    token,
    close: async () => {
      clearInterval(pinger);
      for (const ws of sockets.clients) ws.close(1001, 'The console is shutting down');
      sockets.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
}

function upgradeProblem(req: IncomingMessage, checks: RequestChecks): string | null {
  const hostProblem = checks.checkHostAndOrigin(req);
  if (hostProblem) return hostProblem;
  const url = requestUrl(req);
  if (!url || url.pathname !== '/ws') return 'No such socket';
  if (!checks.hasToken(url)) return 'Missing or wrong token';
  return null;
}

// ---- HTTP ------------------------------------------------------------------------------------

function serveHttp(req: IncomingMessage, res: ServerResponse, checks: RequestChecks, rendererDir: string): void {
  const hostProblem = checks.checkHostAndOrigin(req);
  if (hostProblem) return refuse(res, 403, hostProblem);
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Only GET');
  const url = requestUrl(req);
  if (!url) return refuse(res, 400, 'Bad request');

  if (url.pathname === '/' || url.pathname === '/index.html') {
    if (!checks.hasToken(url)) return refuse(res, 403, 'Missing or wrong token: open the URL the console printed when it started');
    const index = resolve(rendererDir, 'index.html');
    if (!existsSync(index)) return refuse(res, 500, `The console UI is not built (no ${index}); run "npm run build"`);
    return sendFile(res, index, { 'Content-Security-Policy': pagePolicy(checks), 'Set-Cookie': checks.assetCookie() });
  }
  if (url.pathname === '/ws') return refuse(res, 426, 'WebSocket only');
  if (!checks.mayLoadAsset(req, url)) return refuse(res, 403, 'Missing or wrong token');

  const path = resolve(rendererDir, `.${decodeSafely(url.pathname)}`);
  const inside = relative(rendererDir, path);
  if (inside.startsWith('..') || isAbsolute(inside) || !existsSync(path) || !statSync(path).isFile()) return refuse(res, 404, 'Not found');
  return sendFile(res, path, {});
}

/** The page's policy: scripts and styles from this server only, WebSocket to this server only, no framing. */
function pagePolicy(checks: RequestChecks): string {
  const sockets = checks.origins.map((o) => o.replace(/^http:/, 'ws:')).join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function sendFile(res: ServerResponse, path: string, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...securityHeaders(),
    'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
    'Content-Length': String(statSync(path).size),
    ...headers,
  });
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(path).on('error', () => res.destroy()).pipe(res);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { ...securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

function securityHeaders(): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return null;
  }
}

function decodeSafely(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return '/\u0000';
  }
}

// ---- WebSocket -------------------------------------------------------------------------------

/** One UI connection: requests in (validated), responses and events out. */
function bindSocket(ws: WebSocket, service: ConsoleEndpoint): void {
  const alive = ws as WebSocket & { portalDeskAlive?: boolean };
  alive.portalDeskAlive = true;
  ws.on('pong', () => (alive.portalDeskAlive = true));

  const send = (message: unknown): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const unsubscribe = service.subscribe((event: ConsoleEvent) => {
    if (event.type === 'frame' && ws.bufferedAmount > FRAME_BACKLOG_BYTES) return;
    send({ event });
  });
  ws.on('close', unsubscribe);
  ws.on('error', () => ws.terminate());

  ws.on('message', (data: RawData, isBinary: boolean) => {
    void answer(data, isBinary).then(send);
  });

  async function answer(data: RawData, isBinary: boolean): Promise<unknown> {
    if (isBinary) return { id: 0, ok: false, error: 'Bad request: binary messages are not understood' };
    let raw: unknown;
    try {
      raw = JSON.parse(rawText(data));
    } catch {
      return { id: 0, ok: false, error: 'Bad request: not JSON' };
    }
    const envelope = ConsoleRequestEnvelope.safeParse(raw);
    if (!envelope.success) {
      return { id: idOf(raw), ok: false, error: `Bad request: ${describeZodError(envelope.error)}` };
    }
    const { id, method, params } = envelope.data;
    try {
      return { id, ok: true, result: await service.handle(method, params) };
    } catch (err) {
      return { id, ok: false, error: errorMessage(err) };
    }
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** The request's id where it has a usable one, so the UI can match even a refusal; else 0. */
function idOf(raw: unknown): number {
  const id = raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined;
  return typeof id === 'number' && Number.isInteger(id) ? id : 0;
}

/** How many Host headers the request carried (req.headers keeps only the first). */
function hostHeaderCount(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count++;
  return count;
}
