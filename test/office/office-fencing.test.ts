import { describe, expect, it } from 'vitest';
import { OfficeWaits, type OfficeWait } from '../../src/service/office-waits';
import { openPgStore } from '../../src/store';
import { runCli } from '../support/cli';
import { postgresBin } from '../support/postgres';
import { labCaseFolder, sleep, startDesk, useOfficeLab, type Desk } from './support';

/**
 * Issue 29, item 3: fencing on PostgreSQL with two real desks (`portal-desk worker` processes).
 * Desk 1 fills a case up to the submit approval; it is frozen (SIGSTOP, its browser with it) and
 * cut from PostgreSQL; desk 2 finds it silent, takes the run over (the lease epoch moves on) and
 * resumes it to its own submit approval. Desk 1 is woken and its stale approval answered "approve",
 * the harshest thing that can happen to it: it sends nothing to the portal, writes nothing into the
 * run, and closes its page. Desk 2's approval submits the case, once.
 */
describe.skipIf(!postgresBin())('a desk that lost its run to another desk (fencing)', () => {
  const office = useOfficeLab();

  it('the frozen desk, woken after the take-over, sends nothing and writes nothing into the run', { timeout: 600_000, retry: 0 }, async ({ onTestFailed }) => {
    const { cluster, lab } = office;
    const url = await cluster.createDatabase('fencing');
    const database = new URL(url).pathname.slice(1);
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const { dir, clients } = labCaseFolder(1);
    const client = clients[0]!;
    expect((await runCli(['enqueue', dir], { env })).code).toBe(0);
    const deskArgs = ['--approve', 'office', '--slots', '1', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--stale', '3'];
    const desk1 = startDesk(deskArgs, { ...env, PORTAL_DESK_NAME: 'desk-1' });
    const later: { desk2?: Desk } = {};
    onTestFailed(() => console.error(`desk-1 log:\n${desk1.stderr().slice(-4000)}\n---- desk-2 log:\n${later.desk2?.stderr().slice(-4000) ?? '(not started)'}`));

    let board = await OfficeWaits.open(url, { pollMs: 300 });
    const approvalOf = async (pred: (w: OfficeWait) => boolean): Promise<OfficeWait> => {
      for (let i = 0; i < 1200; i++) {
        const found = (await board.open().catch(() => [] as OfficeWait[])).find((w) => w.kind === 'approval' && pred(w));
        if (found) return found;
        await sleep(300);
      }
      throw new Error('no approval wait came');
    };
    const first = await approvalOf((w) => w.deskName === 'desk-1');
    const runId = first.runId;
    expect(lab.submissions({ clientId: client })).toHaveLength(0);

    // Freeze desk 1 and its browser, and cut it from PostgreSQL (its locks go with its sessions).
    process.kill(-desk1.pid, 'SIGSTOP');
    await board.close();
    await cluster.query(database, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    board = await OfficeWaits.open(url, { pollMs: 300 });

    // Desk 2 takes the run over and resumes it to its own submit approval.
    later.desk2 = startDesk(deskArgs, { ...env, PORTAL_DESK_NAME: 'desk-2' });
    const second = await approvalOf((w) => w.deskName === 'desk-2' && w.runId === runId);
    expect(second.id).not.toBe(first.id);
    const store = await openPgStore(url, { readOnly: true });
    try {
      const before = { steps: (await store.listSteps(runId)).length, events: (await store.auditTrail(runId)).length };
      const requestsBefore = lab.requestLog().filter((r) => r.clientId === client).length;

      // Desk 1 wakes, and the approval it was waiting for is given.
      process.kill(-desk1.pid, 'SIGCONT');
      await board.decide(first.id, { decision: 'approve', by: 'A clerk who did not know' }).catch(() => false);
      for (let i = 0; i < 400 && !/lease_lost/.test(desk1.stderr()); i++) await sleep(300);
      expect(desk1.stderr()).toMatch(/lease_lost: another desk holds run \S+ now; this desk stops acting and closes its page/);
      await sleep(3000);
      // Nothing reached the portal from desk 1, and nothing was written into the run (desk 2 waits at its approval meanwhile).
      expect(lab.requestLog().filter((r) => r.clientId === client).length).toBe(requestsBefore);
      expect(lab.submissions({ clientId: client })).toHaveLength(0);
      expect((await store.listSteps(runId)).length).toBe(before.steps);
      expect((await store.auditTrail(runId)).length).toBe(before.events);

      // Desk 2 goes on: its approval submits the case, once.
      expect(await board.decide(second.id, { decision: 'approve', by: 'Clerk at desk 2' })).toBe(true);
      for (let i = 0; i < 1200; i++) {
        const run = await store.getRun(runId);
        if (run && ['done', 'failed', 'blocked'].includes(run.status)) break;
        await sleep(300);
      }
      const run = await store.getRun(runId);
      expect(run?.status, run?.reason ?? '').toBe('done');
      expect(lab.submissions({ clientId: client })).toHaveLength(1);
      expect((await store.verifyRun(runId)).ok).toBe(true);
      const trail = await store.auditTrail(runId);
      expect(trail.some((e) => e.type === 'interrupted')).toBe(true);
    } finally {
      await store.close();
      await board.close();
    }
  });
});
