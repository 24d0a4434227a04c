import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ConsoleService } from '../../src/console/console-service';
import { sameSecret } from '../../src/console/request-checks';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { openTestService, tempDir } from './support';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP GET with exactly the headers given (fetch would not let a test forge Host). */
function get(server: ConsoleServer, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'GET', headers: { host: `127.0.0.1:${server.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket; resolves with the open socket or the HTTP status that refused it. */
function openSocket(server: ConsoleServer, path: string, headers: Record<string, string> = {}): Promise<{ ws?: WebSocket; refused?: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, { headers, origin: headers.origin ?? `http://127.0.0.1:${server.port}` });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode });
      res.resume();
    });
    ws.once('error', (err) => reject(err));
  });
}

function nextMessage(ws: WebSocket, match: (m: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (!match(m)) return;
      ws.off('message', onMessage);
      resolve(m);
    };
    ws.on('message', onMessage);
  });
}

describe('browser console server', () => {
  let service: ConsoleService;
  let server: ConsoleServer;
  let token: string;

  beforeAll(async () => {
    const renderer = tempDir('pd-renderer-');
    mkdirSync(join(renderer, 'assets'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>console</title><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log("ui")');
    ({ service } = await openTestService());
    server = await startConsoleServer({ service, rendererDir: renderer });
    token = server.token;
  });
  afterAll(async () => {
    await server.close();
    await service.close();
  });

  it('listens on loopback and prints a URL with a long random token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${encodeURIComponent(token)}`);
    expect(token.length).toBeGreaterThanOrEqual(40);
  });

  it('serves the page for the right token, with a strict policy and the asset cookie', async () => {
    const page = await get(server, `/?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>console</title>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain(`connect-src ws://127.0.0.1:${server.port} ws://localhost:${server.port}`);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('refuses the page with a wrong or missing token: 403', async () => {
    expect((await get(server, `/?token=${token.slice(0, -1)}x`)).status).toBe(403);
    expect((await get(server, '/?token=')).status).toBe(403);
    expect((await get(server, '/')).status).toBe(403);
    expect((await get(server, '/index.html')).status).toBe(403);
  });

  it('serves assets only with the token or the page cookie', async () => {
    expect((await get(server, '/assets/app.js')).status).toBe(403);
    expect((await get(server, '/assets/app.js', { cookie: `portal-desk-assets-${server.port}=guess` })).status).toBe(403);
    const page = await get(server, `/?token=${token}`);
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const asset = await get(server, '/assets/app.js', { cookie });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect((await get(server, `/assets/app.js?token=${token}`)).status).toBe(200);
  });

  it('never serves a file outside the built renderer', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/assets/%2e%2e/%2e%2e/package.json', '/..%2fpackage.json']) {
      expect((await get(server, `${path}?token=${token}`)).status).toBe(404);
    }
  });

  it('rejects another Host (DNS rebinding) even with the right token', async () => {
    expect((await get(server, `/?token=${token}`, { host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await get(server, `/?token=${token}`, { host: '127.0.0.1' })).status).toBe(403);
    expect((await get(server, `/?token=${token}`, { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it('rejects another Origin even with the right token', async () => {
    expect((await get(server, `/?token=${token}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(server, `/?token=${token}`, { origin: `http://127.0.0.1:${server.port + 1}` })).status).toBe(403);
  });

  it('refuses the WebSocket with a wrong token, Host or Origin: 403', async () => {
    expect((await openSocket(server, '/ws?token=wrong')).refused).toBe(403);
    expect((await openSocket(server, '/ws')).refused).toBe(403);
    expect((await openSocket(server, `/ws?token=${token}`, { origin: 'http://evil.example' })).refused).toBe(403);
    expect((await openSocket(server, `/ws?token=${token}`, { host: `rebound.example:${server.port}` })).refused).toBe(403);
    expect((await openSocket(server, `/elsewhere?token=${token}`)).refused).toBe(403);
  });

  it('speaks the envelopes and refuses bad messages with a reason (zod)', async () => {
    const { ws } = await openSocket(server, `/ws?token=${token}`);
    expect(ws).toBeDefined();
    const socket = ws!;
    const ask = async (raw: string, id?: number) => {
      const reply = nextMessage(socket, (m) => !('event' in m) && (id === undefined || m.id === id));
      socket.send(raw);
      return reply;
    };
    try {
      expect(await ask('not json')).toEqual({ id: 0, ok: false, error: 'Bad request: not JSON' });
      expect(await ask(JSON.stringify({ id: 'one', method: 'listCases' }))).toMatchObject({ id: 0, ok: false, error: expect.stringMatching(/^Bad request: id:/) });
      expect(await ask(JSON.stringify({ id: 7, params: {} }), 7)).toMatchObject({ id: 7, ok: false, error: expect.stringMatching(/^Bad request: method:/) });
      expect(await ask(JSON.stringify({ id: 8, method: 'eval', params: {} }), 8)).toEqual({ id: 8, ok: false, error: 'Unknown method "eval"' });
      expect(await ask(JSON.stringify({ id: 9, method: 'getScreenshot', params: { hash: 'zz' } }), 9)).toMatchObject({ ok: false, error: expect.stringMatching(/Bad parameters for getScreenshot: hash/) });
      expect(await ask(JSON.stringify({ id: 10, method: 'listRuns', params: { status: 'hacked' } }), 10)).toMatchObject({ ok: false, error: expect.stringMatching(/Bad parameters for listRuns: status/) });
      const cases = await ask(JSON.stringify({ id: 11, method: 'listCases', params: {} }), 11);
      expect(cases).toMatchObject({ id: 11, ok: true });
      expect((cases.result as unknown[]).length).toBeGreaterThan(5);
      const binary = nextMessage(socket, (m) => m.id === 0);
      socket.send(Buffer.from([1, 2, 3]), { binary: true });
      expect(await binary).toMatchObject({ ok: false, error: expect.stringMatching(/binary/) });
    } finally {
      socket.close();
    }
  });
});

describe('sameSecret', () => {
  it('compares in constant time and exactly', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(null, 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
  });
});
