import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../src/shared/clerk';
import { EngineBench } from '../../support/engine';

/** The run's clock, moved on by the test: a clerk who answers "45 s later" takes no real 45 s. */
class TestClock {
  private offset = 0;
  readonly now = (): Date => new Date(Date.now() + this.offset);
  advance(ms: number): void {
    this.offset += ms;
  }
}

/** A clerk who answers each card after the clock moved on by `lateMs` (or never, with `answer` null). */
class LateClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  constructor(
    private readonly clock: TestClock,
    private readonly lateMs: number,
    private readonly answer: 'approve' | null = 'approve',
  ) {}
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    this.clock.advance(this.lateMs);
    if (this.answer === null) return new Promise(() => undefined);
    return { decision: this.answer, by: 'late-clerk' };
  }
}

const CASE = 'shops-renewal-anand-bakery.json';

/**
 * Waiting for the clerk is not working time (issue 28): real Chromium against the lab portal, a real
 * SQLite store, and the run's own clock injected so that a clerk can be late without the test waiting.
 */
// Real runs on a shared 2-core machine: each test gets five minutes.
describe('the clerk’s waits and the run’s time limit', { timeout: 300_000 }, () => {
  const bench = new EngineBench();
  beforeAll(() => bench.start());
  afterAll(() => bench.stop());
  /** Steps of a whole shops run, recorded by the first test's run; the step-cap test reads it instead of running a form of its own to count them. */
  let shopsSteps: number | undefined;

  it('an approval given after the time limit ran out still ends done with its number, in the run and the progress record', async () => {
    const clock = new TestClock();
    // Ten minutes late against a two-minute limit (the limit leaves room for a loaded machine's own working time).
    const clerk = new LateClerk(clock, 600_000);
    const caseFile = bench.caseFile(CASE);
    const run = await bench.run(caseFile, { approvals: clerk, request: { limits: { timeLimitMs: 120_000 }, now: clock.now } });
    expect(run.reason).not.toMatch(/Time limit/);
    expect(run.status, run.reason).toBe('done');
    expect(run.applicationNumber).toMatch(/^SHP-\d{4}-\d{6}$/);
    expect(clerk.asked.length).toBeGreaterThanOrEqual(1);
    // The card carried its own expiry, on the run's clock.
    expect(Date.parse(clerk.asked[0]!.expiresAt!)).toBeGreaterThan(Date.now());
    const stored = await run.store.getRun(run.runId);
    expect(stored?.status).toBe('done');
    expect(stored?.applicationNumber).toBe(run.applicationNumber);
    const progress = await run.store.getProgress(caseFile.clientId, caseFile.portal, caseFile.task);
    expect(progress?.applicationNumber).toBe(run.applicationNumber);
    const submitted = bench.lab.submissions({ clientId: caseFile.clientId }).map((s) => s.applicationNumber);
    expect(submitted).toContain(run.applicationNumber);
    shopsSteps = run.steps;
  });

  it('the agent’s own working time still counts: a run whose steps use up the limit stops at it', async () => {
    const clock = new TestClock();
    // Every card moves the clock on, but the clerk answers at once: only working time is advanced by the steps below.
    const caseFile = bench.caseFile('shops-renewal-meera-kulkarni.json');
    const quickClerk: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'quick-clerk' }) };
    const ticking = setInterval(() => clock.advance(5_000), 50);
    try {
      const run = await bench.run(caseFile, { approvals: quickClerk, request: { limits: { timeLimitMs: 1_000 }, now: clock.now } });
      expect(run.status, run.reason).toBe('interrupted');
      expect(run.reason).toMatch(/^Time limit reached \(1 s of working time, not counting \d+ s waiting for the clerk\) (while|before step \d+, after) \S.*; nothing more was done/);
      expect((await run.store.getRun(run.runId))?.status).toBe('interrupted');
    } finally {
      clearInterval(ticking);
    }
  });

  it('a submission that went out is kept with its number when the step cap ends the run right after it', async () => {
    // The shops form's length, as the first test's run recorded it (run alone, this test runs a form to count them).
    shopsSteps ??= await (async () => {
      const first = await bench.run(bench.caseFile('shops-renewal-srinivas-iyer.json'), { approvals: new LateClerk(new TestClock(), 0) });
      expect(first.status, first.reason).toBe('done');
      return first.steps;
    })();
    // The same form again, with a cap that ends the run before the step that reads the confirmation.
    const caseFile = bench.caseFile('shops-renewal-venkateswara-emporium.json');
    const capped = await bench.run(caseFile, { approvals: new LateClerk(new TestClock(), 0), request: { limits: { maxSteps: shopsSteps - 1 } } });
    expect(capped.status, capped.reason).toBe('done');
    expect(capped.reason).toMatch(/Step cap reached/);
    expect(capped.applicationNumber).toMatch(/^SHP-\d{4}-\d{6}$/);
    expect(bench.lab.submissions({ clientId: caseFile.clientId }).map((s) => s.applicationNumber)).toEqual([capped.applicationNumber]);
    const progress = await capped.store.getProgress(caseFile.clientId, caseFile.portal, caseFile.task);
    expect(progress?.applicationNumber).toBe(capped.applicationNumber);
  });

  it('a card nobody answers runs out on its own clock: a notice first, then the run stops interrupted with nothing sent', async () => {
    const clock = new TestClock();
    const caseFile = bench.caseFile('power-name-change-deshpande.json');
    const clerk: ApprovalGate & { asked: number } = {
      asked: 0,
      async request(req) {
        this.asked += 1;
        // To 1.5 s before the card runs out (however long the card took to make): past the notice (2 s before), not yet run out.
        clock.advance(Date.parse(req.expiresAt!) - clock.now().getTime() - 1_500);
        await sleep(1_200);
        clock.advance(2_000);
        return new Promise<ApprovalDecision>(() => undefined);
      },
    };
    const lines: string[] = [];
    const run = await bench.run(caseFile, { approvals: clerk, request: { limits: { clerkWaitMs: 10_000 }, now: clock.now, listener: { log: (l) => lines.push(l) } } });
    expect(run.status, run.reason).toBe('interrupted');
    expect(run.reason).toMatch(/No answer from the clerk .* within 10 s: nothing was sent/);
    expect(clerk.asked).toBe(1);
    const notice = lines.findIndex((l) => /clerk_wait_expiring: [12] s left to answer/.test(l));
    const expired = lines.findIndex((l) => /clerk_wait_expired/.test(l));
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(expired).toBeGreaterThan(notice);
    expect(bench.lab.submissions({ clientId: caseFile.clientId })).toEqual([]);
    const stored = await run.store.getRun(run.runId);
    expect(stored?.status).toBe('interrupted');
    const events = (await run.store.listSteps(run.runId)).flatMap((s) => s.events.map((e) => e.type));
    expect(events).toEqual(expect.arrayContaining(['clerk_wait_expiring', 'clerk_wait_expired']));
  });
});
