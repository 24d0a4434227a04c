import { mkdirSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleService } from '../../src/console/console-service';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { bindLabProfile, type Lab } from '../../lab';
import type { DemoPortals } from '../../src/service/demo-portals';
import { LabHandle } from '../../lab/demo/lab-portals';
import type { RunView } from '../../src/shared/console-api';
import type { StepRecord } from '../../src/shared/run';
import { ensureRendererBuilt } from './renderer-build';
import { CASES_DIR, memoryKey, openConsolePage, REPO, tempDir } from './support';

/**
 * A clerk's day in the browser console, in real Chromium against the portal lab: the approval
 * shows what will happen (the whole page, the values about to be submitted beside the case),
 * a denial is a decision, and closing the console leaves a waiting run resumable. Screens are
 * kept under test-artifacts/console/ at 1280×720 and 1920×1080 for a person to look at.
 *
 * Two whole forms (issue 27): the console closing on a waiting run is the outage run's second
 * interruption, not a form of its own; the wrong one-time code is console-e2e's code run; the submit
 * card and the denial are the take-over run's, once it is handed back.
 */
const ARTIFACTS = join(REPO, 'test-artifacts/console');
const RUN_MS = 300_000;

let labHandle: LabHandle;
let lab: Lab;
let dir: string;
let service: ConsoleService;
let server: ConsoleServer;
let browser: Browser;
let page: Page;
const pageProblems: string[] = [];
// One vault key for both lives of the console (the saved login state is sealed with it).
const vaultKey = memoryKey();

/**
 * A switch in front of the lab's port: the portal "stops answering" when it is off (connections
 * refused) and comes back on the same port, with the lab's sessions and drafts as they were.
 */
class PortalSwitch {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async on(labPort: number): Promise<void> {
    const server = createServer((socket) => {
      const upstream = connect(labPort, '127.0.0.1');
      for (const s of [socket, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async off(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/** The lab as the console's demo portals, with every profile bound to the switch's port instead of the lab's. */
function switchedDemo(handle: LabHandle, portal: PortalSwitch): DemoPortals<Lab> {
  return {
    portalId: (profile) => handle.portalId(profile),
    layouts: true,
    credentials: handle.credentials,
    get: () => handle.get(),
    bind: async (profile) => {
      const bound = await handle.bind(profile);
      return bound.lab ? { profile: bindLabProfile(profile, portal.port), lab: bound.lab } : bound;
    },
    stop: async () => undefined,
    resolverRules: (target) => handle.resolverRules(target),
    adversary: (seed) => handle.adversary(seed),
  };
}

async function openService(demo: DemoPortals = labHandle, wait?: (ms: number) => Promise<void>): Promise<void> {
  service = await ConsoleService.open({
    dbPath: join(dir, 'runs.sqlite'),
    casesDir: CASES_DIR,
    vaultDir: join(dir, 'vault'),
    env: { PORTAL_DESK_HOME: dir, PATH: process.env.PATH },
    keySource: vaultKey,
    clerkName: 'test-clerk',
    demo,
    ...(wait ? { wait } : {}),
  });
  server = await startConsoleServer({ service });
}

async function expectText(locator: Locator, pattern: RegExp | string, timeout = 20_000): Promise<void> {
  const re = typeof pattern === 'string' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : pattern;
  await expect.poll(() => locator.innerText({ timeout: 1000 }).catch(() => ''), { timeout }).toMatch(re);
}

async function shot(name: string, size: { width: number; height: number } = { width: 1280, height: 720 }): Promise<void> {
  await page.setViewportSize(size);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(ARTIFACTS, `${name}-${size.width}x${size.height}.png`) });
}

async function shots(name: string): Promise<void> {
  await shot(name, { width: 1920, height: 1080 });
  await shot(name, { width: 1280, height: 720 });
}

async function startCase(caseId: string): Promise<string> {
  await page.locator('nav.topbar').getByRole('link', { name: 'Runs', exact: true }).click();
  await page.locator(`[data-case="${caseId}"]`).getByRole('button', { name: `Start ${caseId}` }).click();
  await page.waitForURL(/#\/run\/run-/);
  await page.locator('.status-header').waitFor();
  return decodeURIComponent(new URL(page.url()).hash.replace('#/run/', ''));
}

async function statusOf(runId: string): Promise<RunView> {
  return (await service.handle('getRun', { runId })) as RunView;
}

async function diagnose(name: string): Promise<void> {
  const views = (await service.handle('listRuns', {}).catch(() => [])) as RunView[];
  console.error(`[clerk-day e2e] ${name} failed; runs:\n${views.map((v) => `  ${v.run.id} ${v.run.caseId} ${v.run.status}: ${v.run.reason ?? ''}`).join('\n')}`);
  await page.screenshot({ path: join(ARTIFACTS, `failed-${name}.png`) }).catch(() => undefined);
}

beforeAll(async () => {
  ensureRendererBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  labHandle = new LabHandle();
  lab = await labHandle.get();
  dir = tempDir();
  await openService();
  ({ browser, page } = await openConsolePage(server.url, { viewport: { width: 1280, height: 720 } }, pageProblems));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await service?.close();
  await labHandle?.stop();
}, 60_000);

/** The run's own portal page, for the test's clerk to find where a button is in the live picture (geometry only). */
function runPage(runId: string): Page {
  const live = (service as unknown as { runs: { get(runId: string): { page?: Page } | undefined } }).runs.get(runId);
  if (!live?.page) throw new Error(`run ${runId} has no live page`);
  return live.page;
}

/** Clicks in the live view where the run's page has `target`: the click goes through the console to the portal. */
async function clickInLiveView(runId: string, target: (p: Page) => Locator): Promise<void> {
  const portal = runPage(runId);
  const box = await target(portal).boundingBox();
  const size = portal.viewportSize();
  if (!box || !size) throw new Error('the target is not on the portal page');
  const img = page.locator('.live-box.live-taken img');
  const shown = await img.boundingBox();
  if (!shown) throw new Error('the live view is not shown');
  await page.mouse.click(shown.x + ((box.x + box.width / 2) / size.width) * shown.width, shown.y + ((box.y + box.height / 2) / size.height) * shown.height);
}

describe('a clerk’s day in the console', { retry: 0 }, () => {
  it(
    'pauses at a CAPTCHA for the clerk to take over in the live view; the clerk works the portal and hands back; the same run goes on to its submit card, which shows the whole review page and every value beside its case value; the clerk denies: a decision, said once',
    async ({ onTestFailed }) => {
      onTestFailed(() => diagnose('take-over'));
      lab.configure('srinivas-iyer', { captcha: 'form' });
      const runId = await startCase('shops-renewal-srinivas-iyer');
      const card = page.getByRole('region', { name: 'Bot check' });
      await card.waitFor({ timeout: RUN_MS });
      await expectText(page.locator('.status-header .status-word'), 'Waiting for you — take over');
      expect((await statusOf(runId)).run.status).toBe('awaiting_input');
      // Counted as waiting for the clerk.
      await expectText(page.locator('.waiting-badge'), /^1 waiting for you$/);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shots('takeover-offered');

      await card.getByRole('button', { name: 'Take over' }).click();
      const mine = page.getByRole('region', { name: 'You have the portal' });
      await mine.waitFor();
      await page.locator('.live-box.live-taken').waitFor();
      // Input goes to the page only while the clerk has it: the page is at the check.
      expect(runPage(runId).url()).toMatch(/\/human-check/);
      // The clerk ticks "I'm not a robot" inside the CAPTCHA frame through the live view, then (the lab's
      // stand-in for picking the pictures) the check is solved, and the clerk presses Continue in the portal.
      lab.solveCaptcha('srinivas-iyer');
      await clickInLiveView(runId, (p) => p.getByRole('button', { name: 'Continue' }));
      await expect.poll(() => runPage(runId).url(), { timeout: 30_000 }).not.toMatch(/\/human-check/);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shots('takeover-active');
      await mine.getByRole('textbox').fill('ticked the box, picked the lights');
      await mine.getByRole('button', { name: /Hand back/ }).click();

      // The same run goes on: no new run, on to the submit approval. (A run handed back after a take-over goes on to done,
      // approved, in office-take-over.test.ts; an approved card to done in the console is the outage run's below and
      // console-e2e's. Issue 27: this run carries the card's checks and the denial instead of a form of its own.)
      const approval = page.getByRole('region', { name: 'Approval needed' });
      await approval.waitFor({ timeout: RUN_MS });
      expect(decodeURIComponent(new URL(page.url()).hash.replace('#/run/', ''))).toBe(runId);
      const runs = (await service.handle('listRuns', {})) as RunView[];
      expect(runs.filter((v) => v.run.caseId === 'shops-renewal-srinivas-iyer').map((v) => v.run.id)).toEqual([runId]);
      await expectText(approval.locator('.approval-action').first(), /Submit application/);
      // The table of what will be submitted: every row compared with the case, none differing.
      const table = approval.getByLabel('Values about to be submitted');
      await table.waitFor({ timeout: 30_000 });
      const rows = table.locator('tbody tr');
      expect(await rows.count()).toBeGreaterThan(10);
      const matches = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-match')));
      expect(matches.filter((m) => m === 'differs')).toEqual([]);
      expect(matches.filter((m) => m === 'same').length).toBeGreaterThan(10);
      await expectText(table.locator('tr', { hasText: 'Business name' }).first(), /business_name/);
      await expectText(approval.locator('.review-values .label'), /all match the case/);
      // The whole page, not the viewport: the picture is taller than it is wide, in a scrolling box.
      const picture = approval.locator('.approval-shot-scroll img');
      await expect.poll(() => picture.getAttribute('alt'), { timeout: 30_000 }).toMatch(/whole portal page/);
      const size = await picture.evaluate((img: HTMLImageElement) => ({ w: img.naturalWidth, h: img.naturalHeight }));
      expect(size.h).toBeGreaterThan(size.w);
      const scroller = approval.locator('.approval-shot-scroll');
      expect(await scroller.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
      await shots('approval-review');

      // A/D work with the note focused (Alt+D from there).
      const note = approval.getByRole('textbox');
      await note.fill('client asked to wait');
      await note.press('Alt+d');
      const header = page.locator('.status-header[data-status="failed"]');
      await header.waitFor({ timeout: 60_000 });
      await expectText(header.locator('.status-word'), /^Denied — nothing was sent$/);
      expect(await header.getAttribute('class')).toContain('tone-idle');
      expect(await page.locator('.banner-failed').count()).toBe(0);
      const steps = (await service.handle('listSteps', { runId })) as StepRecord[];
      const denied = steps.flatMap((s) => s.actions).filter((a) => a.approval?.decision === 'deny');
      expect(denied).toEqual([expect.objectContaining({ approval: expect.objectContaining({ by: 'test-clerk', note: 'client asked to wait' }) })]);
      const lastEntry = page.locator('.step-log .step').first();
      expect(((await lastEntry.locator('.actions').innerText()).match(/denied/gi) ?? []).length).toBe(1);
      await shots('run-denied');
      expect(lab.submissions({ clientId: 'srinivas-iyer' })).toHaveLength(0);

      // The take-over in the step log: the page as the clerk got it and as they handed it back.
      const taken = steps.find((s) => s.events.some((e) => e.type === 'take_over'));
      expect(taken).toBeDefined();
      expect(taken!.events.find((e) => e.type === 'take_over')!.message).toMatch(/test-clerk took over the bot check and handed the portal back after \d+ s \(“ticked the box, picked the lights”\)/);
      expect(taken!.screenshotHash).toMatch(/^[0-9a-f]{64}$/);
      expect(taken!.afterScreenshotHash).toMatch(/^[0-9a-f]{64}$/);
      expect(taken!.afterScreenshotHash).not.toBe(taken!.screenshotHash);
      expect(taken!.observation.url).toMatch(/\/human-check/);
      // Nobody asked the model about the check, and no step after the hand-back read the check again.
      expect(steps.filter((s) => s.index > taken!.index).some((s) => /human-check/.test(s.observation.url))).toBe(false);
    },
    RUN_MS * 2,
  );

  it(
    'a portal that stops answering mid-run is reported as not answering, with the network error; the run waits, stops resumable, and resumes once it is back; closing the console while it waits for approval leaves it interrupted, nothing decided; the next console resumes it to done',
    async ({ onTestFailed }) => {
      onTestFailed(() => diagnose('outage-and-resume'));
      const portal = new PortalSwitch();
      await portal.on(lab.port);
      // The outage handler's pauses before it tries the portal again, injected: each is held until the
      // test has seen the run say it is waiting, then none is slept through (4 × 5 s otherwise).
      const waits: number[] = [];
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      const demo = switchedDemo(labHandle, portal);
      const wait = async (ms: number) => {
        waits.push(ms);
        await held;
      };
      await server.close();
      await service.close();
      await openService(demo, wait);
      await page.goto(server.url);
      const runId = await startCase('shops-renewal-venkateswara-emporium');
      await expect.poll(async () => (await statusOf(runId)).run.stepCount, { timeout: RUN_MS, interval: 500 }).toBeGreaterThanOrEqual(3);
      await portal.off();
      const header = page.locator('.status-header');
      await expectText(header.locator('.status-word'), 'The portal is not answering', RUN_MS);
      await expectText(header.locator('.status-detail'), /The portal is not answering \((net::ERR_[A-Z_]+|the page did not load)\); trying again/);
      await shots('portal-not-answering');
      // The run is waiting before its first try again, and only then goes on.
      expect(waits).toEqual([5_000]);
      expect((await statusOf(runId)).run.status).toBe('running');
      letGo();
      await page.locator('.status-header[data-status="interrupted"]').waitFor({ timeout: RUN_MS });
      expect(waits).toEqual([5_000, 5_000, 5_000, 5_000]);
      const stopped = await statusOf(runId);
      expect(stopped.run.reason).toMatch(/^The portal is not answering \(.+ at http:\/\/shops\.portal\.example:\d+\/.*\); nothing was lost\. Resume the run when the portal is back\.$/);
      const steps = (await service.handle('listSteps', { runId })) as StepRecord[];
      // Never a planner's give-up, never an action "done" on an error page.
      expect(steps.flatMap((s) => s.actions).filter((a) => a.action.type === 'fail')).toEqual([]);
      expect(steps.flatMap((s) => s.events).filter((e) => e.type === 'portal_not_answering').length).toBeGreaterThanOrEqual(2);
      await shots('portal-interrupted');

      await portal.on(lab.port);
      await page.getByRole('region', { name: 'Resume' }).getByRole('button', { name: 'Resume this run' }).click();
      await page.getByRole('region', { name: 'Approval needed' }).waitFor({ timeout: RUN_MS });

      // The resumed run waits for approval, and the console closes: what Ctrl+C does in `portal-desk console` (the server, then the service).
      // The same run serves: a run of its own to the card would be a second whole form proving nothing more.
      await server.close();
      await service.close();
      await openService(demo, wait);
      const closed = await statusOf(runId);
      expect(closed.run.status).toBe('interrupted');
      expect(closed.run.reason).toMatch(/console closed while the run waited for your approval.*nothing was decided for you/);
      const undecided = (await service.handle('listSteps', { runId })) as StepRecord[];
      expect(undecided.flatMap((s) => s.actions).filter((a) => a.approval)).toEqual([]);
      expect(lab.submissions({ clientId: 'irfan-shaikh' })).toHaveLength(0);

      await page.goto(`${server.url}#/run/${encodeURIComponent(runId)}`);
      const resume = page.getByRole('region', { name: 'Resume' });
      await resume.waitFor({ timeout: 30_000 });
      await expectText(page.locator('.status-header .status-word'), 'Interrupted — resumable');
      await shots('run-interrupted');
      await resume.getByRole('button', { name: 'Resume this run' }).click();
      await page.getByRole('region', { name: 'Approval needed' }).waitFor({ timeout: RUN_MS });
      expect(new URL(page.url()).hash).toBe(`#/run/${encodeURIComponent(runId)}`);
      await page.keyboard.press('a');
      await page.locator('.status-header[data-status="done"]').waitFor({ timeout: RUN_MS });
      expect((await statusOf(runId)).run.applicationNumber).toMatch(/^SHP-/);
      expect(lab.submissions({ clientId: 'irfan-shaikh' })).toHaveLength(1);
      await portal.off();
    },
    RUN_MS * 3,
  );

  it('raised no page errors and no CSP violations', () => {
    // While the console was closed, the page's socket could not reconnect (refused, or reset mid-handshake as the server closed): that one is expected.
    expect(pageProblems.filter((p) => !/WebSocket connection to .* failed: .*ERR_CONNECTION_(REFUSED|RESET)/.test(p))).toEqual([]);
  });
});
