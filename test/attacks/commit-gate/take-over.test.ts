import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import type { PlanResult, Planner } from '../../../src/agent/decide/planner';
import { ClerkDesk } from '../../../src/console/clerk-desk';
import { playClerkInput } from '../../../src/console/take-over-input';
import { CaseFile } from '../../../src/shared/case-file';
import type { ClerkInputEvent } from '../../../src/shared/console-api';
import type { PortalProfile } from '../../../src/shared/portal-profile';
import { executeRun } from '../../../src/service/run-service';
import { openStore } from '../../../src/store';
import { RecordingApprovals, ScriptedInputs } from '../../support/engine';
import { PortalSite } from '../portal-site';

/**
 * The take-over hole named in the last closing note: while the clerk holds the portal, a commit
 * request was counted as theirs whatever sent it. Now it is theirs only through a click or key of
 * theirs aimed at a control that names that address. These pages try the other ways to the same
 * submission during a take-over: a timer, a script that posts on any click, the same with the
 * page's DOM built-ins redefined to lie about what was clicked, a form whose script swaps its
 * action as it submits. Each must reach the clerk as a held request (denied here) and land
 * nothing; the clerk's own click on Submit, and Enter in the form, go through once, unasked.
 */

const HOST = 'counter.services.example';

type Variant = 'honest-click' | 'honest-enter' | 'honest-scrolled' | 'timer' | 'post-on-any-click' | 'lying-dom' | 'swapped-action' | 'query-on-mousedown' | 'field-on-mousedown';

const SCRIPTS: Record<Variant, string> = {
  'honest-click': '',
  'honest-enter': '',
  'honest-scrolled': '',
  // Starts posting once the clerk has had the page a moment (after the run handed it over).
  timer: `setTimeout(() => setInterval(() => fetch('/apply/submit', { method: 'POST', body: new URLSearchParams({ full_name: 'Mallory' }) }), 250), 800);`,
  'post-on-any-click': `document.addEventListener('click', () => fetch('/apply/submit', { method: 'POST', body: new URLSearchParams({ full_name: 'Mallory' }) }), true);`,
  'lying-dom': `
    const submit = () => document.querySelector('#send');
    Document.prototype.elementFromPoint = function () { return submit(); };
    Object.defineProperty(Document.prototype, 'activeElement', { get() { return submit(); } });
    Object.defineProperty(HTMLButtonElement.prototype, 'formAction', { get() { return location.origin + '/apply/submit'; } });
    Object.defineProperty(HTMLInputElement.prototype, 'type', { get() { return 'submit'; } });
    document.addEventListener('click', () => fetch('/apply/submit', { method: 'POST', body: new URLSearchParams({ full_name: 'Mallory' }) }), true);`,
  'swapped-action': `document.querySelector('form').addEventListener('submit', (e) => { e.target.action = '/apply/submit-final'; }, true);`,
  // The clerk's own press, with what it sends rewritten as they press: the same address, other values.
  'query-on-mousedown': `document.addEventListener('mousedown', () => { document.querySelector('#by-link').href = '/apply/submit?full_name=Mallory'; }, true);`,
  'field-on-mousedown': `document.addEventListener('mousedown', () => { document.querySelector('#full_name').value = 'Mallory'; }, true);`,
};

interface Landed {
  path: string;
  body: string;
}

class CounterPortal extends PortalSite {
  variant: Variant = 'honest-click';
  readonly landed: Landed[] = [];
  protected readonly host = HOST;

  profile(): PortalProfile {
    return this.profileWith({
      id: 'counter',
      name: 'Trade counter (take-over test portal)',
      confirmation: { applicationNumberPattern: 'TC-\\d{5}', pageContains: 'Application received' },
      submitPaths: ['/apply/submit'],
    });
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', this.origin).pathname;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.method === 'POST' || path === '/apply/submit') {
      this.landed.push({ path, body: req.method === 'POST' ? Buffer.concat(chunks).toString() : new URL(req.url ?? '/', this.origin).search.slice(1) });
      res.end(`<!doctype html><title>Received</title><h1>Application received</h1><p>Reference TC-${String(this.landed.length).padStart(5, '0')}</p>`);
      return;
    }
    if (path !== '/') {
      res.statusCode = 404;
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    res.end(`<!doctype html><html><head><title>Security check</title></head><body>
      <h1>Verify you are human</h1>
      <p><label><input type="checkbox" id="human"> I am a person</label></p>
      ${this.variant === 'query-on-mousedown' ? '<p><a id="by-link" href="/apply/submit?full_name=Ravi+Kumar">Send as Ravi Kumar</a></p>' : ''}
      ${this.variant === 'honest-scrolled' ? '<div style="height: 2400px">Terms of service…</div>' : ''}
      <form method="post" action="/apply/submit">
        <p><label for="full_name">Full name</label> <input id="full_name" name="full_name"></p>
        <p><button id="send" type="submit">Send application</button></p>
      </form>
      <script>${SCRIPTS[this.variant]}</script>
    </body></html>`);
  }
}

/** Ends the run at the first page it decides (the test is about what happened during the take-over). */
class StopPlanner implements Planner {
  readonly id = 'stop';
  readonly description = 'test planner: ends the run at once';
  start(): void {}
  async decide(): Promise<PlanResult> {
    return { turn: { reasoning: 'the test ends here', actions: [{ type: 'fail', reason: 'the test ends here' }] }, call: null };
  }
}

const CASE = CaseFile.parse({ caseId: 'counter-ravi', clientId: 'ravi-kumar', portal: 'counter', task: 'trade-counter', fields: { full_name: 'Ravi Kumar' } });

let portal: CounterPortal;
let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), 'pd-take-over-gate-'));
let runs = 0;

beforeAll(async () => {
  portal = await new CounterPortal().start();
  browser = await launchChromium({ hostResolverRules: `MAP ${HOST} 127.0.0.1` });
});
afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Where an element sits, as the fractions of the picture the console's live view sends. */
async function at(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = (await page.locator(selector).boundingBox())!;
  const size = page.viewportSize()!;
  return { x: (box.x + box.width / 2) / size.width, y: (box.y + box.height / 2) / size.height };
}

function click(point: { x: number; y: number }): ClerkInputEvent[] {
  return [
    { type: 'mouse', action: 'down', button: 'left', ...point },
    { type: 'mouse', action: 'up', button: 'left', ...point },
  ];
}

/** Waits until `done` holds, looking every 50 ms, for at most `ms`: the test's assertions then say what happened. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** What the clerk does by hand while they hold the portal; `settled` says the gate has judged what the page sent. */
async function clerkWorks(variant: Variant, page: Page, play: (events: ClerkInputEvent[]) => Promise<void>, settled: () => boolean): Promise<void> {
  if (variant === 'query-on-mousedown') {
    await play(click(await at(page, '#by-link')));
  } else if (variant === 'honest-click' || variant === 'swapped-action' || variant === 'field-on-mousedown') {
    await play(click(await at(page, '#full_name')));
    await play([{ type: 'text', text: 'Ravi Kumar' }]);
    await play(click(await at(page, '#send')));
  } else if (variant === 'honest-scrolled') {
    // The form is below the fold: the clerk scrolls to it first, so viewport and document points differ.
    await play([{ type: 'wheel', x: 0.5, y: 0.5, deltaX: 0, deltaY: 2000 }]);
    await page.waitForFunction(() => window.scrollY > 1000);
    await play(click(await at(page, '#full_name')));
    await play([{ type: 'text', text: 'Ravi Kumar' }]);
    await play(click(await at(page, '#send')));
  } else if (variant === 'honest-enter') {
    await play(click(await at(page, '#full_name')));
    await play([{ type: 'text', text: 'Ravi Kumar' }, { type: 'key', key: 'Enter', modifiers: [] }]);
  } else {
    // The clerk ticks the bot check's box, and nothing else.
    await play(click(await at(page, '#human')));
  }
  // Until the page's request (the clerk's own, or one the page sends by itself: the timer posts every 250 ms after 800 ms)
  // has landed or been put to the clerk as the page's own during the take-over.
  await until(settled);
}

async function runWithTakeOver(variant: Variant) {
  portal.variant = variant;
  portal.landed.length = 0;
  const store = openStore(join(dir, `runs-${runs++}.sqlite`));
  const approvals = new RecordingApprovals('deny');
  let page: Page | undefined;
  let runId = '';
  let work: Promise<void> | undefined;
  const desk: ClerkDesk = new ClerkDesk('clerk:test', (id) => {
    const offered = desk.pendingTakeOver(id);
    if (work || !offered || offered.state !== 'offered' || !page) return;
    work = (async () => {
      desk.startTakeOver(id, null);
      const settled = () => portal.landed.length > 0 || approvals.asked.some((a) => /^the page itself during the take-over/.test(a.request?.cause ?? ''));
      await clerkWorks(variant, page!, (events) => playClerkInput(page!, events, (controls) => desk.noteGesture(id, controls)), settled);
      desk.handBack(id, 'hand_back', 'worked it by hand');
    })();
  });
  try {
    const result = await executeRun(
      { store, browser, approvals, inputs: new ScriptedInputs(() => null), credentials: { get: async () => null }, takeOvers: desk },
      {
        caseFile: CASE,
        profile: portal.profile(),
        planner: 'rules',
        plannerInstance: new StopPlanner(),
        approveMode: 'ask',
        limits: { maxSteps: 6, timeLimitMs: 60_000 },
        onStart: (id) => (runId = id),
        onPage: (p) => void (page = p),
      },
    );
    await work;
    const events = (await store.listSteps(runId)).flatMap((s) => s.events);
    return { result, approvals, events };
  } finally {
    store.close();
  }
}

describe('a take-over: only the clerk’s own click or key sends a submission unasked', () => {
  for (const variant of ['honest-click', 'honest-enter', 'honest-scrolled'] as const) {
    it(`${variant}: the clerk’s submission goes once, recorded as theirs, with no approval card`, async () => {
      const { approvals, events } = await runWithTakeOver(variant);
      expect(portal.landed).toHaveLength(1);
      expect(portal.landed[0]).toMatchObject({ path: '/apply/submit', body: 'full_name=Ravi+Kumar' });
      expect(approvals.asked).toEqual([]);
      const sent = events.filter((e) => e.type === 'commit_approved');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.message).toMatch(/approved by clerk:test, by hand \(take-over\)/);
    });
  }

  for (const variant of ['timer', 'post-on-any-click', 'lying-dom', 'swapped-action', 'query-on-mousedown', 'field-on-mousedown'] as const) {
    it(`${variant}: what the page sends on its own is held for the clerk, and denied lands nothing`, async () => {
      const { approvals, events } = await runWithTakeOver(variant);
      expect(portal.landed, `landed: ${JSON.stringify(portal.landed)}`).toEqual([]);
      // The attack was tried: the gate held it and asked, naming the page, not the clerk, as its cause.
      expect(approvals.asked.length).toBeGreaterThan(0);
      // (The timer goes on posting after the hand-back: those are asked about as the page's own too.)
      const causes = approvals.asked.map((a) => a.request?.cause ?? '');
      expect(causes.some((c) => /^the page itself during the take-over/.test(c)), causes.join('\n')).toBe(true);
      for (const cause of causes) expect(cause).toMatch(/^the page itself/);
      expect(events.some((e) => e.type === 'commit_denied')).toBe(true);
      expect(events.some((e) => e.type === 'commit_approved' && /by hand/.test(e.message))).toBe(false);
    });
  }
});
