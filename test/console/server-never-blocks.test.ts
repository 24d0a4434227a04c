import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { withTimeout } from '../../src/base/with-timeout';
import type { ConsoleService } from '../../src/console/console-service';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { openTestService, tempDir } from './support';

/**
 * Issue 29, item 2, where the clerk meets it: the console's server never blocks on a run. A run
 * started from the console with the Claude planner against a Messages API that accepts the
 * connection and never answers (the real SDK waits on it): while the run is stuck there, the
 * console's page and every request of its API are still answered, the run's own state included.
 * A blocked server answers nothing; each answer is given 10 s, a blocked one never comes.
 */
const sockets: Socket[] = [];
let modelRequests = 0;
const silent = createServer((socket) => {
  sockets.push(socket);
  socket.once('data', () => (modelRequests += 1));
});

let service: ConsoleService;
let server: ConsoleServer;
let ws: WebSocket;
let nextId = 1;

/** One request of the console's API over its WebSocket, as the renderer sends it. */
async function call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const id = nextId++;
  const reply = new Promise<Record<string, unknown>>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (m.id !== id) return;
      ws.off('message', onMessage);
      resolve(m);
    };
    ws.on('message', onMessage);
  });
  ws.send(JSON.stringify({ id, method, params }));
  return withTimeout(reply, 10_000, `the console did not answer ${method} within 10 s`);
}

function getPage(): Promise<number> {
  return withTimeout(
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: `/?token=${encodeURIComponent(server.token)}`, headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    }),
    10_000,
    'the console did not serve its page within 10 s',
  );
}

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  const home = tempDir('pd-home-');
  ({ service } = await openTestService({ env: { PATH: process.env.PATH, PORTAL_DESK_HOME: home, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` } }));
  const renderer = tempDir('pd-renderer-');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>console</title><script type="module" src="./assets/app.js"></script>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log("ui")');
  server = await startConsoleServer({ service, rendererDir: renderer });
  ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: `http://127.0.0.1:${server.port}` });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
});

afterAll(async () => {
  ws?.close();
  for (const s of sockets) s.destroy();
  await server?.close();
  await service?.close();
  silent.close();
});

describe('the console server while a run waits on a model that never answers', () => {
  it('serves its page and answers every API request, the stuck run’s own state included', { timeout: 120_000 }, async () => {
    const started = await call('startRun', { file: 'shops-renewal-anand-bakery.json', planner: 'anthropic' });
    expect(started, JSON.stringify(started)).toMatchObject({ ok: true });
    const runId = (started.result as { runId: string }).runId;
    // The run signs in and sends its first page to the model, which never answers.
    for (let i = 0; i < 300 && modelRequests === 0; i++) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(modelRequests, 'the run never asked the model').toBeGreaterThan(0);

    for (let round = 0; round < 5; round++) {
      expect(await getPage()).toBe(200);
      const run = await call('getRun', { runId });
      expect(run).toMatchObject({ ok: true, result: { run: { id: runId, status: 'running' } } });
      expect(await call('listRuns')).toMatchObject({ ok: true });
      expect(await call('listCases')).toMatchObject({ ok: true });
      expect(await call('listSteps', { runId })).toMatchObject({ ok: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Still stuck on the model: the answers above came while the run waited, not after it ended.
    expect(await call('getRun', { runId })).toMatchObject({ ok: true, result: { run: { status: 'running' } } });
  });
});
