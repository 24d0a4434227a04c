import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../src/store';
import { runCli } from '../support/cli';
import { postgresBin } from '../support/postgres';
import { labCaseFolder, sleep, startDesk, useOfficeLab } from './support';

/**
 * Runs at desk 1 wait for the clerk's approval of the final submit as rows in the office database;
 * a clerk at another desk (a second console: "portal-desk waits", its own process) lists them and
 * approves them, and each decision reaches its run, which submits once and finishes. The desk has
 * one slot, and two cases are queued: a run waiting for the clerk holds no slot (issue 28), so
 * the desk takes the second case while the first waits, and both wait at once.
 */
describe.skipIf(!postgresBin())('human waits in the office database', () => {
  const office = useOfficeLab();

  it('a one-slot desk takes the next case while a run waits; approvals given from a second console reach the runs at the first desk', { timeout: 300_000 }, async () => {
    const { cluster, lab } = office;
    const url = await cluster.createDatabase('waits');
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const { dir, caseIds, clients } = labCaseFolder(2);
    expect((await runCli(['enqueue', dir], { env })).code).toBe(0);
    // Enqueued twice: while a run of a client waits at this desk, the second copy of its case waits its turn (the desk
    // holds the client), then finds the case done and does not run it again.
    expect((await runCli(['enqueue', dir], { env })).code).toBe(0);
    const desk = startDesk(['--approve', 'office', '--slots', '1', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--drain', '1'], env);

    // The second console: once both approvals are rows (watched with one query, not a CLI process every
    // 300 ms while the desk fills the forms), list them and approve them as other clerks.
    const db = new URL(url).pathname.slice(1);
    const openWaits = async (): Promise<number> => {
      const [table] = await cluster.query<{ name: string | null }>(db, "SELECT to_regclass('office_waits')::text AS name");
      if (!table?.name) return 0;
      return (await cluster.query<{ n: number }>(db, 'SELECT count(*)::int AS n FROM office_waits WHERE answered_at IS NULL'))[0]!.n;
    };
    for (let i = 0; i < 600 && (await openWaits()) < 2; i++) await sleep(300);
    const r = await runCli(['waits', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as { id: string; kind: string; runId: string; deskId: string; caseId: string; prompt: { element?: string } }[];
    // Both runs wait at once at the one-slot desk: the first gave its slot up while it waited.
    expect(listed, desk.stderr().slice(-3000)).toHaveLength(2);
    for (const wait of listed) {
      expect(wait).toMatchObject({ kind: 'approval', prompt: { element: expect.stringMatching(/Submit/) } });
      expect(wait.deskId).toContain(`:${desk.pid}:`);
    }
    expect(listed.map((w) => w.caseId).sort()).toEqual([...caseIds].sort());
    // Nothing was submitted while the runs waited.
    for (const client of clients) expect(lab.submissions({ clientId: client })).toHaveLength(0);
    const [first, second] = listed;
    const approve = await runCli(['waits', 'approve', first!.id, '--by', 'Anna Byrne (desk 2)'], { env });
    expect(approve.code, approve.stderr).toBe(0);
    // Answered once: a second clerk's answer is refused.
    const late = await runCli(['waits', 'deny', first!.id, '--by', 'someone else'], { env });
    expect(late.code, `${late.stderr}\n${desk.stderr().slice(-2000)}`).toBe(1);
    const other = await runCli(['waits', 'approve', second!.id, '--by', 'Ravi Menon (desk 3)'], { env });
    expect(other.code, other.stderr).toBe(0);

    const end = await desk.exited;
    expect(end.code, desk.stderr().slice(-3000)).toBe(0);
    for (const client of clients) expect(lab.submissions({ clientId: client })).toHaveLength(1);
    // One client at a time: no two claims of a client overlap, and the second copy of each case was claimed only after
    // the first was released (it found the case done: two runs in all).
    const claims = await cluster.query<{ slot_key: string; claimed_at: Date; released_at: Date | null; outcome: string | null }>(
      db,
      'SELECT slot_key, claimed_at, released_at, outcome FROM office_claims ORDER BY slot_key, claimed_at',
    );
    for (const client of clients) {
      const mine = claims.filter((c) => c.slot_key.startsWith(`${client}/`));
      expect(mine.map((c) => c.outcome), client).toEqual(['done', 'already-done']);
      expect(mine[1]!.claimed_at.getTime(), client).toBeGreaterThanOrEqual(mine[0]!.released_at!.getTime());
    }
    const store = await openPgStore(url, { readOnly: true });
    try {
      const runs = await store.listRuns();
      expect(runs).toHaveLength(2);
      for (const [wait, by] of [
        [first!, 'Anna Byrne (desk 2)'],
        [second!, 'Ravi Menon (desk 3)'],
      ] as const) {
        const run = runs.find((r) => r.caseId === wait.caseId);
        expect(run?.status).toBe('done');
        expect(run?.id).toBe(wait.runId);
        expect((await store.approvals(run!.id)).map((a) => [a.decision, a.by])).toEqual([['approve', by]]);
      }
    } finally {
      await store.close();
    }
  });
});
