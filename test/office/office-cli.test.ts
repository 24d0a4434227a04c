import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openPgStore } from '../../src/store';
import { REPO, runCli, tempHome } from '../support/cli';
import { postgresBin, sharedPostgres } from '../support/postgres';

const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');

/**
 * PORTAL_DESK_DATABASE_URL chooses the office store at the CLI: run records there, verify and replay
 * read it there, no SQLite file is made. Which store a run writes to is settled before its first
 * step, so the run is three steps (`--max-steps 3`: the step cap ends it, failed, before the form):
 * a whole form in PostgreSQL, to done and submitted once, is what every office test runs.
 */
describe.skipIf(!postgresBin())('the CLI on the office store', () => {
  afterAll(async () => (await sharedPostgres())?.stop());

  it('runs, verifies and replays a run in PostgreSQL, leaving the desk’s SQLite path unused', { timeout: 300_000 }, async () => {
    const url = await (await sharedPostgres())!.createDatabase('cli');
    const home = tempHome();
    const db = join(home, 'never-made.sqlite');
    const env = { PORTAL_DESK_DATABASE_URL: url, PORTAL_DESK_HOME: home };
    const run = await runCli(['run', '--case', SHOPS_CASE, '--approve', 'all', '--max-steps', '3', '--json', '--db', db], { env });
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    const store = await openPgStore(url, { readOnly: true });
    try {
      expect(await store.getRun(runId)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^Step cap reached \(3 steps\)/) });
      expect((await store.listSteps(runId)).map((s) => s.index)).toEqual([0, 1, 2]);
    } finally {
      await store.close();
    }
    const verify = await runCli(['verify', runId, '--db', db], { env });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/intact/);
    const replay = await runCli(['replay', runId, '--json', '--db', db], { env });
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ source: { kind: 'store' }, run: { id: runId, status: 'failed' }, steps: [{}, {}, {}] });
    const { existsSync } = await import('node:fs');
    expect(existsSync(db)).toBe(false);
    // A wrong address is one line and exit 2, its password never shown.
    const bad = await runCli(['verify', runId], { env: { PORTAL_DESK_DATABASE_URL: 'postgres://clerk:pw-s3cret@127.0.0.1:1/office', PORTAL_DESK_HOME: home } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Could not open the Portal Desk database at postgres:\/\/clerk:\*\*\*@127\.0\.0\.1:1\/office/);
    expect(bad.stderr).not.toContain('pw-s3cret');
  });
});
