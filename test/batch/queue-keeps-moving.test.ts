import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { bindLabProfile } from '../../lab';
import { LabCredentials } from '../../lab/demo/lab-portals';
import { runBatch, type BatchEntry, type BatchOutcome } from '../../src/service/batch';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../src/shared/clerk';
import type { CaseFile } from '../../src/shared/case-file';
import { EngineBench, ScriptedInputs } from '../support/engine';

/** A clerk away from the desk: each card waits until the test lets it be approved. */
class AwayClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  private back!: () => void;
  private readonly returned = new Promise<void>((resolve) => (this.back = resolve));
  private first!: () => void;
  readonly firstCard = new Promise<void>((resolve) => (this.first = resolve));
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    this.first();
    await this.returned;
    return { decision: 'approve', by: 'clerk-back' };
  }
  comeBack(): void {
    this.back();
  }
}

const QUICK: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'clerk-at-desk' }) };

/**
 * A queue that keeps moving (issue 28): five cases, two working places; the first two runs wait for
 * a clerk who is away, and the two others of other clients take both places and finish meanwhile,
 * while the fifth (the client of a waiting run) does not start; it runs once its elder is done. Real Chromium, the lab portals, a
 * real SQLite store; the batch machinery the console's queue and `portal-desk batch` use. A third
 * other case finishing meanwhile (six cases, before issue 27) was one more whole form in a place a
 * finished run had handed on, which every queue test already does.
 */
describe('a queue of five with both places waiting for the clerk', () => {
  const bench = new EngineBench();
  beforeAll(() => bench.start());
  afterAll(() => bench.stop());

  it('two others finish while the two wait, the fifth waits for its client; the clerk back, the two finish and the fifth runs; one client and portal never runs twice at once', async () => {
    const store = bench.store('queue');
    const caseFiles: CaseFile[] = [
      'shops-renewal-anand-bakery.json',
      'shops-renewal-meera-kulkarni.json',
      'shops-renewal-srinivas-iyer.json',
      'shops-renewal-venkateswara-emporium.json',
      'power-name-change-fernandes.json',
    ].map((f) => bench.caseFile(f));
    // The fourth entry is the same client and portal as the second (waiting): it must wait for it, not run beside it.
    // When it starts is the check, not how it ends: a bot check at its sign-in ends it there, blocked, without a whole form.
    caseFiles[3] = { ...caseFiles[3]!, clientId: caseFiles[1]!.clientId, caseId: `${caseFiles[3]!.caseId}-same-client` };
    const away = [new AwayClerk(), new AwayClerk()];
    const finished: BatchOutcome[] = [];
    const live = new Map<string, number>();
    let sameClientTwice = false;
    let mostWorking = 0;
    let working = 0;
    const entries: BatchEntry[] = caseFiles.map((caseFile) => ({ source: caseFile.caseId, caseFile }));
    const batch = runBatch(entries, {
      concurrency: 2,
      services: { store, approvals: QUICK, inputs: new ScriptedInputs(() => null), credentials: new LabCredentials() },
      prepare: async (caseFile) => {
        const key = `${caseFile.clientId}/${caseFile.portal}`;
        live.set(key, (live.get(key) ?? 0) + 1);
        if (live.get(key)! > 1) sameClientTwice = true;
        const index = caseFiles.indexOf(caseFile);
        bench.lab.configure(caseFile.clientId, index === 3 ? { captcha: 'signin' } : {});
        return {
          browser: bench.browser,
          request: {
            profile: bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port),
            planner: 'rules',
            approveMode: 'ask',
            listener: {
              status: (status) => {
                const works = status === 'running';
                if (works) working++;
                else if (status === 'awaiting_approval' || status === 'awaiting_input') working--;
                mostWorking = Math.max(mostWorking, working);
              },
            },
          },
          ...(index < 2 ? { services: { approvals: away[index]! } } : {}),
          release: () => {
            live.set(key, live.get(key)! - 1);
          },
        };
      },
      listener: { finished: (o) => finished.push(o) },
    });

    await Promise.all(away.map((a) => a.firstCard));
    // Both places wait for the clerk; the two others of other clients finish meanwhile.
    const deadline = Date.now() + 240_000;
    while (finished.filter((o) => o.status === 'done').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const whileAway = finished.map((o) => o.caseId);
    expect(whileAway.sort()).toEqual([caseFiles[2]!.caseId, caseFiles[4]!.caseId].sort());
    expect(finished.every((o) => o.status === 'done')).toBe(true);
    // The same-client case has not started: its elder still waits for the clerk.
    expect((await store.listRuns({})).some((r) => r.caseJson.includes(caseFiles[3]!.caseId))).toBe(false);

    away.forEach((a) => a.comeBack());
    const outcomes = await batch;
    expect(outcomes.map((o) => [o.caseId, o.status])).toEqual(caseFiles.map((c, i) => [c.caseId, i === 3 ? 'blocked' : 'done']));
    expect(outcomes.filter((o) => o.status === 'done').every((o) => /^(SHP|PWR)-\d{4}-\d{6}$/.test(o.applicationNumber ?? ''))).toBe(true);
    expect(outcomes[3]!.reason).toMatch(/^bot_challenge: /);
    expect(sameClientTwice).toBe(false);
    expect(away.every((a) => a.asked.length >= 1)).toBe(true);
    // Working runs never exceeded the places by more than the runs coming back from the clerk (two here).
    expect(mostWorking).toBeLessThanOrEqual(4);
  }, 420_000);
});
