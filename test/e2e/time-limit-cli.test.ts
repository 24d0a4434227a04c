import { mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 2: the run's time limit covers model requests. A Messages API on loopback that
 * accepts the connection and never answers: the real SDK waits on it, and the run still ends by
 * its `--time-limit`, `interrupted`, naming what it was doing; the process exits.
 */
const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');
const sockets: Socket[] = [];
let requests = 0;
const silent = createServer((socket) => {
  sockets.push(socket);
  socket.once('data', () => (requests += 1));
});
beforeAll(() => new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve)));
afterAll(() => {
  for (const s of sockets) s.destroy();
  silent.close();
});

describe('a model endpoint that never answers (the real SDK, the real CLI)', () => {
  it('the run ends by its time limit, interrupted, with what it was doing named', { timeout: 180_000 }, async () => {
    const port = (silent.address() as { port: number }).port;
    const db = join(mkdtempSync(join(tmpdir(), 'pd-limit-')), 'runs.sqlite');
    const started = Date.now();
    const r = await runCli(['run', '--case', SHOPS_CASE, '--model', 'anthropic', '--approve', 'all', '--json', '--db', db, '--time-limit', '10'], {
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
      timeoutMs: 150_000,
    });
    const took = Date.now() - started;
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(requests).toBeGreaterThanOrEqual(1);
    const summary = JSON.parse(r.stdout);
    expect(summary.status).toBe('interrupted');
    expect(summary.reason).toMatch(/^Time limit reached \(10 s of working time[^)]*\) while waiting for the planner \(anthropic[^)]*\) at step \d+; nothing more was done/);
    // Lab start-up and the browser take a few seconds; the SDK's own timeout (minutes) never came into it.
    expect(took).toBeLessThan(75_000);
    const store = openStore(db);
    const run = await store.getRun(summary.runId);
    expect(run?.status).toBe('interrupted');
    expect(run?.reason).toMatch(/Time limit reached/);
    store.close();
  });
});
