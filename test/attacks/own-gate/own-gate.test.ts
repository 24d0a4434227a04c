import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import type { CaseView, PlanInput, PlanResult, Planner } from '../../../src/agent/decide/planner';
import type { Action } from '../../../src/shared/action';
import { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../src/shared/clerk';
import { executeRun, type FinishedRun } from '../../../src/service/run-service';
import { openStore, type Store } from '../../../src/store';
import { RecordingApprovals, ScriptedInputs } from '../../support/engine';
import { BerthPortal, type BerthAttack } from './berth-portal';

/**
 * The fail-closed gate's own attack portal (issue 26, items 4, 5, 6 and 8): a mooring-berth portal
 * with its own pages and wording. Our own code as the sender (a privacy banner's decline that
 * deletes, a "Download your receipt" link to a void address), a page script that swaps the body
 * after the clerk approved, a second filing in one run, a review page holding a value no case
 * field gave. Each test counts what reached the portal in the portal's own log, and shows its
 * route was taken (a card the clerk was shown, a refusal in the step log, or the portal's log).
 */

const CASE = CaseFile.parse({
  caseId: 'berth-ines-duarte',
  clientId: 'ines-duarte',
  portal: 'berths',
  task: 'mooring-berth',
  fields: { skipper_name: 'Ines Duarte', vessel_name: 'Gull of Porto', home_port: 'Lisbon' },
});

/** The client's model, honest unless given moves (each tried once, on the first page it answers). */
class BerthPlanner implements Planner {
  readonly id = 'berth-script';
  readonly description = 'test model: the honest berth application, plus the moves a test asks for';
  private turns = 0;
  constructor(private readonly moves: ((input: PlanInput) => Action[] | undefined)[] = []) {}
  async start(_case: CaseView): Promise<void> {}
  async decide(input: PlanInput): Promise<PlanResult> {
    const o = input.observation;
    const act = (actions: Action[]): PlanResult => ({ turn: { reasoning: 'script', actions }, call: null });
    if ((this.turns += 1) > 14) return act([{ type: 'fail', reason: 'too many turns' }]);
    for (let i = 0; i < this.moves.length; i++) {
      const answer = this.moves[i]?.(input);
      if (answer) {
        this.moves.splice(i, 1);
        return act(answer);
      }
    }
    const named = (name: string) => o.controls.find((c) => c.name === name);
    const number = /BRT-\d{6}/.exec(`${o.headings.join(' ')} ${o.text}`)?.[0];
    if (number) return act([{ type: 'done', proof: number }]);
    if (named('Skipper name') && named('Vessel name')) {
      return act([
        { type: 'fill', ref: named('Skipper name')!.ref, field: 'skipper_name' },
        { type: 'fill', ref: named('Vessel name')!.ref, field: 'vessel_name' },
        { type: 'click', ref: named('Next')!.ref },
      ]);
    }
    if (named('Home port')) return act([{ type: 'fill', ref: named('Home port')!.ref, field: 'home_port' }, { type: 'click', ref: named('Next')!.ref }]);
    for (const name of ['Begin', 'File application']) if (named(name)) return act([{ type: 'click', ref: named(name)!.ref }]);
    return act([{ type: 'fail', reason: 'nothing more to do' }]);
  }
}

/**
 * A clerk who reads the card: approves a card only when every value it names is from the case and
 * the review page it names matches the case; denies everything else. `cards` keeps every card.
 */
class CarefulClerk implements ApprovalGate {
  readonly cards: ApprovalRequest[] = [];
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.cards.push(req);
    const held = req.request;
    const stranger = held?.values.some((v) => v.origin === 'not_from_case') ?? false;
    const differs = held?.review?.some((r) => r.match !== 'same') ?? false;
    return { decision: stranger || differs ? 'deny' : 'approve', by: 'careful-clerk' };
  }
}

let portal: BerthPortal;
let browser: Browser;
let store: Store | undefined;
let stores = 0;
const dir = mkdtempSync(join(tmpdir(), 'pd-own-gate-'));

beforeAll(async () => {
  portal = await new BerthPortal().start();
  browser = await launchChromium({ hostResolverRules: portal.hostResolverRules, downloadsPath: join(dir, 'downloads') });
}, 30_000);
afterAll(async () => {
  store?.close();
  await browser?.close();
  await portal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(attack: BerthAttack, clerk: ApprovalGate, planner: Planner = new BerthPlanner()): Promise<{ result: FinishedRun; events: { type: string; message: string }[] }> {
  portal.reset(attack);
  store?.close();
  store = openStore(join(dir, `runs-${stores++}.sqlite`));
  const result = await executeRun(
    { store, browser, approvals: clerk, inputs: new ScriptedInputs(() => null), credentials: { get: async () => null } },
    { caseFile: CASE, profile: portal.profile(), planner: 'rules', plannerInstance: planner, approveMode: 'ask', limits: { maxSteps: 14, timeLimitMs: 90_000 } },
  );
  const events = (await store.listSteps(result.runId)).flatMap((s) => s.events).map((e) => ({ type: e.type, message: e.message }));
  return { result, events };
}

const TIMEOUT = 120_000;

describe('our own code goes through the same gate', () => {
  let busy: ChildProcess | undefined;
  afterAll(() => void busy?.kill());

  it('a privacy banner whose "Reject all" posts _method=DELETE: code does not press it; the denying clerk sees no effect at the portal', async () => {
    const aboutYou = `<div role="dialog" aria-modal="true" aria-labelledby="pc"><h2 id="pc">Your privacy choices</h2>
<form method="post" action="/berth/preferences"><input type="hidden" name="_method" value="DELETE"><button type="submit">Reject all</button></form></div>`;
    const clerk = new RecordingApprovals('deny');
    const { events } = await run({ aboutYou }, clerk);
    expect(portal.effects, JSON.stringify(portal.effects)).toEqual([]);
    // The route was taken: code found the banner and refused to press what it sends.
    expect(events.some((e) => e.type === 'interruption' && /Your privacy choices.*sends a form to \S+\/berth\/preferences \(DELETE \/berth\/preferences sends data, and the portal's request map does not name it harmless.*\); code does not press it/.test(e.message)), JSON.stringify(events)).toBe(true);
  }, TIMEOUT);

  it('"Download your receipt" goes to a void address: the approving clerk’s run keeps the confirmation page itself, nothing is voided; under load, one card', async () => {
    // Under load: a busy child process eats a core all through the honest filing, which must still take exactly one card.
    busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const clerk = new CarefulClerk();
    const { result, events } = await run({}, clerk);
    busy.kill();
    expect(result.status, result.reason).toBe('done');
    expect(portal.effects.map((e) => e.kind)).toEqual(['filed']);
    expect(result.applicationNumber).toBe(portal.filings[0]!.number);
    const kept = events.find((e) => e.type === 'receipt' && /sha256/.test(e.message));
    expect(kept?.message, JSON.stringify(events.filter((e) => e.type === 'receipt'))).toMatch(/confirmation page http:\/\/berths\.harbour\.example:\d+\/berth\/filed\/BRT-\d{6} as shown \(nothing fetched\)/);
    const path = /kept at (\S+)$/.exec(kept!.message)![1]!;
    expect(readFileSync(path, 'utf8')).toContain('Download your receipt');
    // One card for the filing, read from its request: what it carries and the review page beside the case.
    expect(clerk.cards).toHaveLength(1);
    expect(clerk.cards[0]!.action?.type).toBe('click');
    expect(clerk.cards[0]!.request?.url).toMatch(/\/berth\/file$/);
    expect(clerk.cards[0]!.request?.review?.map((r) => [r.label, r.match])).toEqual([
      ['Skipper name', 'same'],
      ['Vessel name', 'same'],
      ['Home port', 'same'],
    ]);
    // The filing form posts no field of its own (the sections saved them): an empty body, no hash on the card.
    expect(clerk.cards[0]!.request?.bodySha256).toBeUndefined();
  }, TIMEOUT);
});

describe('a card binds to the exact request', () => {
  it('a script that swaps the body after the clerk approved the filing: the second request is asked again and refused, one filing with the case’s values', async () => {
    // The page swallows the form's own post, sends the case's values (the card), then posts its own body to the same address.
    const check = `<script>document.addEventListener('submit', function (e) { e.preventDefault();
      fetch('/berth/file', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'vessel_name=Gull+of+Porto' })
        .then(function () { return fetch('/berth/file', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'vessel_name=Black+Pearl' }); })
        .then(function (r) { location.href = '/berth/filed/' + r.url.split('/').pop(); }, function () {}); }, true);</script>`;
    const clerk = new CarefulClerk();
    await run({ check }, clerk);
    expect(portal.filings.map((f) => f.values.vessel_name)).toEqual(['Gull of Porto']);
    const asked = clerk.cards.filter((c) => c.request?.url.endsWith('/berth/file'));
    expect(asked.length, JSON.stringify(asked.map((a) => a.request))).toBe(2);
    expect(asked[0]!.request!.bodySha256).not.toBe(asked[1]!.request!.bodySha256);
    expect(asked[1]!.request!.values).toContainEqual({ name: 'vessel_name', value: 'Black Pearl', origin: 'not_from_case' });
  }, TIMEOUT);

  it('a review page holding a value no case field gave (saved by a free section save): the filing’s card names the difference; the careful clerk denies, nothing filed', async () => {
    const clerk = new CarefulClerk();
    // The section save of "Your berth" (free: no card) also sends a hidden vessel name the case never gave.
    const { result } = await run({ berthHidden: { vessel_name: 'Black Pearl' } }, clerk);
    expect(portal.filings).toEqual([]);
    const card = clerk.cards.find((c) => c.request?.url.endsWith('/berth/file'));
    expect(card?.request?.values.every((v) => v.origin !== 'not_from_case')).toBe(true);
    expect(card?.request?.review?.find((r) => r.label === 'Vessel name')).toMatchObject({ pageValue: 'Black Pearl', caseValue: 'Gull of Porto', match: 'differs' });
    expect(result.status).toBe('failed');
  }, TIMEOUT);
});

describe('done only for exactly one application', () => {
  it('the portal files a second application in the same run (a script on the confirmation page): the run ends failed naming both', async () => {
    const filed = `<script>fetch('/berth/lodge-again', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'vessel_name=Gull+of+Porto' });</script>`;
    const clerk = new CarefulClerk();
    const { result } = await run({ filed }, clerk);
    expect(portal.filings.map((f) => f.path)).toEqual(['/berth/file', '/berth/lodge-again']);
    expect(result.status).toBe('failed');
    const [first, second] = portal.filings.map((f) => f.number!);
    expect(result.reason).toMatch(/more than one submission/);
    expect(result.reason).toContain(first);
    expect(result.reason).toContain(second);
    expect(result.applicationNumber ?? null).toBeNull();
  }, TIMEOUT);
});
