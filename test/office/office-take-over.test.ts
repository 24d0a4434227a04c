import { describe, expect, it } from 'vitest';
import { OfficeWaits, type OfficeWait } from '../../src/service/office-waits';
import { openPgStore } from '../../src/store';
import { runCli } from '../support/cli';
import { postgresBin } from '../support/postgres';
import { labCaseFolder, sleep, startDesk, useOfficeLab } from './support';

/**
 * A bot check at an office desk is a wait every desk sees: two runs of desk-1 (`worker --approve
 * office`, PORTAL_DESK_NAME=desk-1) meet a "Verify you are human" page. `portal-desk waits` at
 * desk-2 lists both take-overs with their client and the desk holding the browser, cannot take one
 * (the browser is at desk-1) and declines the other, which ends blocked with nothing submitted. A
 * clerk at desk-1 takes the first; while they have it no other desk ends it; the check is solved
 * by hand and the portal handed back; the same run goes on to the submit approval (answered from
 * desk-2) and is done, submitted once, its take-over in the step log.
 */
describe.skipIf(!postgresBin())('take-over as an office wait', () => {
  const office = useOfficeLab();

  it('any desk sees and may decline a bot check; only the desk holding the browser takes it over and hands it back', { timeout: 420_000 }, async ({ onTestFailed }) => {
    const { cluster, lab } = office;
    const url = await cluster.createDatabase('takeover');
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const atDesk1 = { ...env, PORTAL_DESK_NAME: 'desk-1' };
    const atDesk2 = { ...env, PORTAL_DESK_NAME: 'desk-2' };
    const { dir, caseIds, clients } = labCaseFolder(2);
    const [taken, declined] = clients as [string, string];
    for (const client of clients) lab.configure(client, { captcha: 'form' });
    expect((await runCli(['enqueue', dir], { env })).code).toBe(0);
    const desk = startDesk(['--approve', 'office', '--slots', '2', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--drain', '1'], atDesk1);
    // A timeout says nothing of its own: the desk's log says where its runs were.
    onTestFailed(() => console.error(`desk-1 (pid ${desk.pid}) log, last lines:\n${desk.stderr().slice(-6000)}`));

    const board = await OfficeWaits.open(url, { pollMs: 300 });
    try {
      const waitsOf = async (pred: (w: OfficeWait) => boolean, n: number): Promise<OfficeWait[]> => {
        for (let i = 0; i < 900; i++) {
          const open = (await board.open()).filter(pred);
          if (open.length >= n) return open;
          await sleep(300);
        }
        throw new Error(`no ${n} waits came:\n${desk.stderr().slice(-3000)}`);
      };
      const takeOvers = await waitsOf((w) => w.kind === 'take_over', 2);
      const byClient = new Map(takeOvers.map((w) => [w.clientId, w]));
      const [a, b] = [byClient.get(taken)!, byClient.get(declined)!];
      expect(a, JSON.stringify(takeOvers)).toMatchObject({ kind: 'take_over', deskName: 'desk-1', clientId: taken, prompt: { reason: 'bot_check' } });
      expect(a.deskId).toContain(`desk-1:${desk.pid}:`);
      expect(b).toMatchObject({ kind: 'take_over', deskName: 'desk-1', clientId: declined });
      // Nothing was submitted while the runs waited.
      expect(lab.submissions().length).toBe(0);

      // Desk 2 lists them, with the client and the desk that has the browser.
      const listed = await runCli(['waits', 'list'], { env: atDesk2 });
      expect(listed.code, listed.stderr).toBe(0);
      const line = listed.stdout.split('\n').find((l) => l.startsWith(`${a.id} `));
      expect(line).toMatch(new RegExp(`take-over\\s+client ${taken} on \\w+, run ${a.runId} step \\d+ at desk desk-1: the portal shows .*\\(the browser is at desk desk-1: take it over there\\)`));

      // Desk 2 cannot take it (the browser is at desk 1), nor hand back what nobody took.
      const farTake = await runCli(['waits', 'take', a.id, '--by', 'Clerk at desk 2'], { env: atDesk2 });
      expect(farTake.code).toBe(1);
      expect(farTake.stderr).toMatch(/the run's browser is at desk desk-1, not here \(desk-2\): take it over there/);
      expect((await runCli(['waits', 'hand-back', a.id], { env: atDesk2 })).code).toBe(1);
      // An approval's verbs do not answer a take-over.
      expect((await runCli(['waits', 'approve', a.id], { env: atDesk2 })).code).toBe(2);

      // Desk 2 declines the other one: its run ends blocked.
      const decline = await runCli(['waits', 'decline', b.id, '--by', 'Clerk at desk 2', '--note', 'client asked us to wait'], { env: atDesk2 });
      expect(decline.code, decline.stderr).toBe(0);

      // The clerk at desk 1 takes the first; from then on only desk 1 ends it.
      const take = await runCli(['waits', 'take', a.id, '--by', 'Clerk at desk 1'], { env: atDesk1 });
      expect(take.code, take.stderr).toBe(0);
      expect((await board.get(a.id))?.takenBy).toBe('Clerk at desk 1');
      expect((await runCli(['waits', 'take', a.id, '--by', 'someone else'], { env: atDesk1 })).stderr).toMatch(/Clerk at desk 1 has taken it already/);
      const farDecline = await runCli(['waits', 'decline', a.id, '--by', 'Clerk at desk 2'], { env: atDesk2 });
      expect(farDecline.code).toBe(1);
      expect(farDecline.stderr).toMatch(/Clerk at desk 1 has the portal at desk desk-1/);
      // The clerk solves the check by hand in desk 1's browser (the lab's stand-in for picking the pictures), and hands back.
      lab.solveCaptcha(taken);
      const back = await runCli(['waits', 'hand-back', a.id, '--by', 'Clerk at desk 1', '--note', 'ticked the box'], { env: atDesk1 });
      expect(back.code, back.stderr).toBe(0);

      // The same run goes on to the submit approval, which desk 2 gives.
      const [approval] = await waitsOf((w) => w.kind === 'approval' && w.runId === a.runId, 1);
      expect(approval).toMatchObject({ clientId: taken, deskName: 'desk-1' });
      const approve = await runCli(['waits', 'approve', approval!.id, '--by', 'Clerk at desk 2'], { env: atDesk2 });
      expect(approve.code, approve.stderr).toBe(0);

      // Nothing more is asked of a clerk: a run that asked again would wait for ever, so it fails here, saying what it asked.
      let exited = false;
      void desk.exited.then(() => (exited = true));
      while (!exited) {
        const more = (await board.open()).filter((w) => w.runId === a.runId);
        expect(more, `run ${a.runId} asks again after its approval:\n${desk.stderr().slice(-3000)}`).toEqual([]);
        await sleep(300);
      }
      const end = await desk.exited;
      expect(end.code, desk.stderr().slice(-3000)).toBe(0);
    } finally {
      await board.close();
    }
    expect(lab.submissions({ clientId: taken })).toHaveLength(1);
    expect(lab.submissions({ clientId: declined })).toHaveLength(0);

    const store = await openPgStore(url, { readOnly: true });
    try {
      const runs = await store.listRuns();
      const runA = runs.find((r) => r.caseId === caseIds[0])!;
      const runB = runs.find((r) => r.caseId === caseIds[1])!;
      expect([runA.status, runB.status]).toEqual(['done', 'blocked']);
      expect(runB.reason).toMatch(/^bot_challenge: .*Clerk at desk 2 declined to take over/);
      const stepsA = await store.listSteps(runA.id);
      const handed = stepsA.find((s) => s.events.some((e) => e.type === 'take_over'));
      expect(handed?.events.find((e) => e.type === 'take_over')?.message).toMatch(/^Clerk at desk 1 took over the bot check and handed the portal back after \d+ s \(“ticked the box”\)/);
      expect(handed!.afterScreenshotHash).toMatch(/^[0-9a-f]{64}$/);
      // The check was not asked again: after the hand-back the run left it for the form.
      expect(stepsA.filter((s) => s.index > handed!.index).some((s) => /\/apply\//.test(s.observation.url))).toBe(true);
      expect(stepsA.filter((s) => s.events.some((e) => e.type === 'take_over'))).toHaveLength(1);
      const stepsB = await store.listSteps(runB.id);
      expect(stepsB.some((s) => s.events.some((e) => e.type === 'take_over_declined' && /Clerk at desk 2 declined to take over the bot check \(“client asked us to wait”\)/.test(e.message)))).toBe(true);
      expect((await store.approvals(runA.id)).map((x) => [x.decision, x.by])).toEqual([['approve', 'Clerk at desk 2']]);
    } finally {
      await store.close();
    }
  });
});
