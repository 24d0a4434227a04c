import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { openPgStore } from '../../src/store';
import { runCli } from '../support/cli';
import { postgresBin, sharedPostgres, type PgCluster } from '../support/postgres';
import { killDesks, labCaseFolder, sleep, startDesk } from './support';

/**
 * A run at desk 1 waits for the clerk's approval of the final submit as a row in the office
 * database; a clerk at another desk (a second console: "portal-desk waits", its own process)
 * lists it and approves it, and the decision reaches the run, which submits once and finishes.
 */
describe.skipIf(!postgresBin())('human waits in the office database', () => {
  let cluster: PgCluster;
  let lab: Lab;
  beforeAll(async () => {
    cluster = (await sharedPostgres())!;
    lab = await startLab();
  });
  afterAll(async () => {
    await killDesks();
    await lab?.stop();
    cluster?.stop();
  });

  it('an approval given from a second console reaches the run at the first desk', { timeout: 300_000 }, async () => {
    const url = await cluster.createDatabase('waits');
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const { dir, caseIds, clients } = labCaseFolder(1);
    expect((await runCli(['enqueue', dir], { env })).code).toBe(0);
    const desk = startDesk(['--approve', 'office', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--drain', '1'], env);

    // The second console: once the approval is a row (watched with one query, not a CLI process every
    // 300 ms while the desk fills the form), list it and approve it as another clerk.
    const db = new URL(url).pathname.slice(1);
    const openWaits = async (): Promise<number> => {
      const [table] = await cluster.query<{ name: string | null }>(db, "SELECT to_regclass('office_waits')::text AS name");
      if (!table?.name) return 0;
      return (await cluster.query<{ n: number }>(db, 'SELECT count(*)::int AS n FROM office_waits WHERE answered_at IS NULL'))[0]!.n;
    };
    for (let i = 0; i < 600 && (await openWaits()) === 0; i++) await sleep(300);
    const r = await runCli(['waits', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as { id: string; kind: string; runId: string; deskId: string; prompt: { element?: string } }[];
    expect(listed, desk.stderr().slice(-3000)).toHaveLength(1);
    const [wait] = listed;
    expect(wait).toMatchObject({ kind: 'approval', prompt: { element: expect.stringMatching(/Submit/) } });
    expect(wait!.deskId).toContain(`:${desk.pid}:`);
    // Nothing was submitted while the run waited.
    expect(lab.submissions({ clientId: clients[0] })).toHaveLength(0);
    const approve = await runCli(['waits', 'approve', wait!.id, '--by', 'Anna Byrne (desk 2)'], { env });
    expect(approve.code, approve.stderr).toBe(0);
    // Answered once: a second clerk's answer is refused.
    expect((await runCli(['waits', 'deny', wait!.id, '--by', 'someone else'], { env })).code).toBe(1);

    const end = await desk.exited;
    expect(end.code, desk.stderr().slice(-3000)).toBe(0);
    expect(lab.submissions({ clientId: clients[0] })).toHaveLength(1);
    const store = await openPgStore(url, { readOnly: true });
    try {
      const run = (await store.listRuns()).find((r) => r.caseId === caseIds[0]);
      expect(run?.status).toBe('done');
      expect(run?.id).toBe(wait!.runId);
      expect((await store.approvals(run!.id)).map((a) => [a.decision, a.by])).toEqual([['approve', 'Anna Byrne (desk 2)']]);
    } finally {
      await store.close();
    }
  });
});
