import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import type { PlanInput, PlanResult, Planner } from '../../../src/agent/decide/planner';
import { executeRun, type FinishedRun } from '../../../src/service/run-service';
import type { Action } from '../../../src/shared/action';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../src/shared/clerk';
import { PortalProfile } from '../../../src/shared/portal-profile';
import type { StepRecord } from '../../../src/shared/run';
import { openStore, type Store } from '../../../src/store';
import { serveOnLoopback, type LoopbackSite } from '../../support/loopback-site';

/**
 * New tabs and windows in a run, in real Chromium through the whole engine (the guarded context,
 * the commit gate, the run loop): a tab the portal opens on its own address is followed by code
 * (read, recorded with its sha256, closed) and the run goes on in its own page; a confirmation in
 * the new tab ends the run done only with the same proof as on a page; a pop-up to another host is
 * closed and refused as before, and that host receives nothing.
 */

const PAGES: Record<string, string> = {
  '/review': `<title>Check your answers</title><h1>Check your answers</h1><dl><dt>Business name</dt><dd>Asha Stores</dd></dl>
<form method="post" action="/apply/submit" target="_blank"><button>Submit application</button></form>`,
  '/early': `<title>Check your answers</title><h1>Check your answers</h1><p>Before you submit, read your draft.</p>
<script>window.open('/draft', '_blank');</script>
<form method="post" action="/apply/submit"><button>Submit application</button></form>`,
  '/draft': `<title>Application received</title><h1>Application received</h1><p>Your application number is DOC-9999.</p>`,
  '/elsewhere': `<title>Check your answers</title><h1>Check your answers</h1><script>window.open('http://other.test:PORT/help', '_blank');</script>
<form method="post" action="/apply/submit"><button>Submit application</button></form>`,
};

let site: LoopbackSite;
let port = 0;
let browser: Browser;
let store: Store;
let hidden = false;
let runs = 0;
const submissions: string[] = [];
const otherHost: string[] = [];

beforeAll(async () => {
  site = await serveOnLoopback((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if ((req.headers.host ?? '').startsWith('other.test')) {
        otherHost.push(path);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Help</h1>');
        return;
      }
      if (req.method === 'POST' && path === '/apply/submit') {
        submissions.push(path);
        const number = `DOC-${1000 + submissions.length}`;
        const shown = hidden ? `<span style="position:absolute;left:-9999px">${number}</span>` : `<strong>${number}</strong>`;
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Application received</title><h1>Application received</h1><p>Your application number is ${shown}.</p>`);
        return;
      }
      const page = PAGES[path];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' }).end((page ?? 'not found').replace('PORT', String(port)));
    });
  });
  port = site.port;
  browser = await launchChromium({ hostResolverRules: 'MAP * 127.0.0.1' });
  store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-new-tab-')), 'runs.sqlite'));
});
afterAll(async () => {
  store?.close();
  await browser?.close();
  await site.close();
});

/** Presses "Submit application" on the first turn, then claims to be done (the guard wants proof), then gives up. */
class SubmitThenDone implements Planner {
  readonly id = 'scripted';
  readonly description = 'test script';
  start(): void {}
  async decide(input: PlanInput): Promise<PlanResult> {
    const submit = input.observation.controls.find((c) => c.name === 'Submit application');
    const turns: Action[][] = [[{ type: 'click', ref: submit?.ref ?? 'e0' }], [{ type: 'done', proof: 'The portal said so' }]];
    return { turn: { reasoning: 'scripted', actions: turns[input.step] ?? [{ type: 'fail', reason: 'the script is over' }] }, call: null };
  }
}

class ApprovingClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    return { decision: 'approve', by: 'test clerk' };
  }
}

async function run(start: string): Promise<{ run: FinishedRun; steps: StepRecord[]; clerk: ApprovingClerk; openPages: number[] }> {
  const profile = PortalProfile.parse({
    id: 'docs',
    name: 'Documents portal',
    startUrl: `http://docs.test:${port}${start}`,
    allowedHosts: [`docs.test:${port}`],
    allowHttp: true,
    submitPaths: ['/apply/submit'],
    finalReviewPatterns: ['check your answers'],
    confirmation: { applicationNumberPattern: 'DOC-\\d{4}', pageContains: 'application received' },
  });
  const clerk = new ApprovingClerk();
  let context: BrowserContext | undefined;
  const openPages: number[] = [];
  const finished = await executeRun(
    { store, browser, approvals: clerk, inputs: { ask: async () => null }, credentials: { get: async () => null } },
    {
      // A client of its own per run: the store's progress record of one run never stops the next one's submission.
      caseFile: { caseId: `tab-${start.slice(1)}`, clientId: `asha-${start.slice(1)}-${++runs}`, portal: 'docs', task: 'licence', fields: { business_name: 'Asha Stores' }, aliases: {}, documents: {}, declarations: [] },
      profile,
      planner: 'rules',
      plannerInstance: new SubmitThenDone(),
      approveMode: 'ask',
      limits: { maxSteps: 5 },
      onPage: (page) => {
        context = page.context();
      },
      // Pages open in the client's context as each step is recorded (the run's own page, and any tab not yet closed).
      listener: { step: () => void openPages.push(context?.pages().length ?? -1) },
    },
  );
  return { run: finished, steps: await store.listSteps(finished.runId), clerk, openPages };
}

const events = (steps: StepRecord[], type: string) => steps.flatMap((s) => s.events).filter((e) => e.type === type);

describe('new tabs and windows in a run', () => {
  it('follows the confirmation the portal opens in a new tab: proof checked there, recorded, closed, the run done with one approval', async () => {
    hidden = false;
    submissions.length = 0;
    const { run: r, steps, clerk, openPages } = await run('/review');
    expect(r.status, r.reason).toBe('done');
    expect(r.applicationNumber).toBe('DOC-1001');
    expect(r.reason).toMatch(/confirmation of DOC-1001 in a new tab/);
    expect(submissions).toHaveLength(1);
    expect(clerk.asked).toHaveLength(1);
    const followed = events(steps, 'tab_followed');
    expect(followed).toHaveLength(1);
    expect(followed[0]!.message).toMatch(/“Application received” at http:\/\/docs\.test:\d+\/apply\/submit, \d+ bytes of HTML, sha256 [0-9a-f]{64}; it shows the confirmation of DOC-1001; closed it/);
    // The tab opened during the click (step 0); from the next step on only the run's own page is open: it was closed before the run went on.
    expect(openPages[0]).toBe(2);
    expect(openPages.slice(1).every((n) => n === 1), JSON.stringify(openPages)).toBe(true);
  }, 120_000);

  it('does not take a confirmation in the tab whose number is not visibly there: the run is not done', async () => {
    hidden = true;
    submissions.length = 0;
    const { run: r, steps } = await run('/review');
    hidden = false;
    expect(submissions).toHaveLength(1);
    expect(r.status).not.toBe('done');
    expect(events(steps, 'tab_followed').map((e) => e.message)).toEqual([expect.stringMatching(/no proven confirmation in it; closed it/)]);
  }, 120_000);

  it('reads a tab that shows a confirmation before anything was submitted, and proves nothing with it', async () => {
    submissions.length = 0;
    const { run: r, steps } = await run('/early');
    expect(events(steps, 'tab_followed').map((e) => e.message)).toEqual([expect.stringMatching(/“Application received” at http:\/\/docs\.test:\d+\/draft.*no proven confirmation in it/)]);
    // The run went on in its own page: it pressed Submit there (one submission, its own number).
    expect(submissions).toHaveLength(1);
    expect(r.applicationNumber ?? null).not.toBe('DOC-9999');
  }, 120_000);

  it('closes a pop-up to another host at once and refuses its page: that host receives nothing, nothing is followed', async () => {
    otherHost.length = 0;
    const { steps } = await run('/elsewhere');
    expect(events(steps, 'popup_closed').length + events(steps, 'navigation_blocked').length).toBeGreaterThanOrEqual(1);
    expect(events(steps, 'tab_followed')).toEqual([]);
    expect(otherHost).toEqual([]);
  }, 120_000);
});
