import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleService } from '../../src/console/console-service';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { openStore } from '../../src/store';
import { startLab, type Lab } from '../../lab';
import { DemoLoader } from '../../src/cli/demo-portals';
import type { RunView, VerifyResult } from '../../src/shared/console-api';
import type { StepRecord } from '../../src/shared/run';
import { ensureRendererBuilt } from './renderer-build';
import { openConsolePage, openTestService, REPO } from './support';

/**
 * The console end to end in real headless Chromium: the browser console served in-process on a
 * temp store with the portal lab, driven like a clerk would. Each screen is kept as a PNG under
 * test-artifacts/console/ for a human to look at. The lab is another's, as `console --lab-url`
 * uses one (issue 28): its owner (this test) asks for the one-time code and the CAPTCHA, which the
 * clerk then meets in the console.
 */
const ARTIFACTS = join(REPO, 'test-artifacts/console');
const RUN_MS = 300_000;

let lab: Lab;
let service: ConsoleService;
let storeDir: string;
let server: ConsoleServer;
let browser: Browser;
let page: Page;
const pageProblems: string[] = [];
const runIds = { anand: '', otp: '' };

/** Waits until the locator's text matches (vitest has no Playwright matchers). */
async function expectText(locator: Locator, pattern: RegExp | string, timeout = 20_000): Promise<void> {
  const re = typeof pattern === 'string' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : pattern;
  await expect.poll(() => locator.innerText({ timeout: 1000 }).catch(() => ''), { timeout }).toMatch(re);
}

async function expectCount(locator: Locator, count: number, timeout = 20_000): Promise<void> {
  await expect.poll(() => locator.count(), { timeout }).toBe(count);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
}

async function tab(name: 'Runs' | 'Replay' | 'Settings'): Promise<void> {
  await page.locator('nav.topbar').getByRole('link', { name, exact: true }).click();
}

/** Starts a case from the Runs screen and returns the run id the UI navigated to. */
async function startCase(caseId: string): Promise<string> {
  await tab('Runs');
  const row = page.locator(`[data-case="${caseId}"]`);
  await row.getByRole('button', { name: `Start ${caseId}` }).click();
  await page.waitForURL(/#\/run\/run-/);
  const runId = decodeURIComponent(new URL(page.url()).hash.replace('#/run/', ''));
  await page.locator('.status-header').waitFor();
  return runId;
}

async function openRun(runId: string): Promise<void> {
  await page.evaluate((hash) => (window.location.hash = hash), `#/run/${encodeURIComponent(runId)}`);
  await page.locator(`.status-header`).waitFor();
}

/** On a failure: every run's status and reason, and the screen as it was. */
async function diagnose(name: string): Promise<void> {
  const views = (await service.handle('listRuns', {}).catch(() => [])) as RunView[];
  console.error(`[console e2e] ${name} failed; runs:\n${views.map((v) => `  ${v.run.id} ${v.run.caseId} ${v.run.status}: ${v.run.reason ?? ''}`).join('\n')}`);
  await page.screenshot({ path: join(ARTIFACTS, `failed-${name}.png`) }).catch(() => undefined);
}

async function statusOf(runId: string): Promise<RunView> {
  return (await service.handle('getRun', { runId })) as RunView;
}

beforeAll(async () => {
  ensureRendererBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  lab = await startLab();
  // The OTP variant for one client only: the others sign in without a code.
  lab.configure('aditya-deshpande', { otp: 'signin' });
  ({ service, dir: storeDir } = await openTestService({ demo: await new DemoLoader().runningPortals(`http://127.0.0.1:${lab.port}`) }));
  server = await startConsoleServer({ service });
  ({ browser, page } = await openConsolePage(server.url, { viewport: { width: 1440, height: 960 }, acceptDownloads: true }, pageProblems));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await service?.close();
  await lab?.stop();
}, 60_000);

// One clerk's session, step after step: a retried test would meet the runs its first try left behind.
describe('the operator console in Chromium', { retry: 0 }, () => {
  it('shows the queue of case files', async () => {
    await page.getByRole('heading', { name: 'Case files' }).waitFor();
    await page.locator('[data-case="shops-renewal-anand-bakery"]').waitFor();
    // One row a case file in resources/cases, its read-only status checks (read/) among them.
    const caseFiles = readdirSync(join(REPO, 'resources', 'cases'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.json'));
    expect(caseFiles.length).toBeGreaterThanOrEqual(16);
    await expectCount(page.locator('.case-row'), caseFiles.length);
    expect(await page.locator('.conn-open').count()).toBe(1);
  });

  it('refuses a layout in one line, starting nothing: the lab’s owner sets it', async () => {
    await expect(service.handle('startRun', { file: 'shops-renewal-anand-bakery.json', planner: 'rules', layout: 'redesigned' })).rejects.toThrow(/run by another process \(console --lab-url\), whose owner sets its layouts/);
    expect(await service.handle('listRuns', {})).toEqual([]);
  });

  it(
    'runs a lab case while another waits for the clerk: steps stream in, the clerk approves the submit with A, types an OTP (a wrong one first: the card says so and a new code is sent), and sees done with the application number',
    async ({ onTestFailed }) => {
      onTestFailed(() => diagnose('runs'));
      // Run 1: the ordinary case. Its steps stream into the log while it runs, up to the submit.
      runIds.anand = await startCase('shops-renewal-anand-bakery');
      await page.locator('.step-log .step').first().waitFor({ timeout: RUN_MS });
      await shot('run-live');
      const card = page.locator('.approval-card');
      await card.waitFor({ timeout: RUN_MS });
      // One card read from the request the click sends: the action it is for, and the address the request goes to.
      await expectText(card.locator('.approval-action').first(), /Submit application/);
      await expectText(card.locator('.approval-address'), /\/apply\/submit/);
      await expectText(card.locator('.approval-reason'), /submit/i);
      await card.locator('.approval-shot img').waitFor({ state: 'visible' });
      expect(await page.locator('.status-header').getAttribute('data-status')).toBe('awaiting_approval');
      expect(await page.locator('.step-log .step').count()).toBeGreaterThan(3);
      await shot('run-approval');

      // Run 2, while run 1 waits, on another portal: the lab asks this client for a one-time code at sign-in. The clerk
      // types a wrong one first: the card says the portal did not take it; the clerk asks for a new code and gives that.
      runIds.otp = await startCase('power-name-change-deshpande');
      const otpInput = page.getByRole('textbox', { name: 'Type the one-time code' });
      await otpInput.waitFor({ timeout: RUN_MS });
      expect(await otpInput.getAttribute('type')).toBe('password');
      expect(await page.locator('.status-header').getAttribute('data-status')).toBe('awaiting_input');
      let first: string | null = null;
      await expect.poll(() => (first = lab.latestOtp('aditya-deshpande')), { timeout: 30_000 }).toMatch(/^\d{6}$/);
      // The page says the code lasts 5 minutes: the card counts it down.
      await expectText(page.locator('.code-lifetime'), /works for another [45]:\d\d min/);
      await otpInput.fill(first === '000000' ? '111111' : '000000');
      await otpInput.press('Enter');
      const problem = page.locator('.input-problem');
      await problem.waitFor({ timeout: 60_000 });
      await expectText(problem, /The verification code is incorrect/);
      await expectText(page.locator('.input-card h2'), 'The portal did not take that code — type it again');
      expect((await statusOf(runIds.otp)).pendingInput).toMatchObject({ kind: 'otp', problem: expect.stringMatching(/incorrect/), canResend: true });
      await shot('run-otp-wrong');
      await page.getByRole('button', { name: 'Send a new code' }).click();
      await expect.poll(() => lab.latestOtp('aditya-deshpande'), { timeout: 60_000 }).not.toBe(first);
      const code = lab.latestOtp('aditya-deshpande')!;
      await expectCount(problem, 0, 60_000);
      await otpInput.fill(code);
      await shot('run-otp');
      await otpInput.press('Enter');
      await page.locator('.input-card').waitFor({ state: 'detached', timeout: 30_000 });
      expect(await page.content()).not.toContain(code);

      // Run 2 reaches its submit too; the queue shows both waiting, in amber.
      await page.locator('.approval-card').waitFor({ timeout: RUN_MS });
      expect((await statusOf(runIds.anand)).pendingApproval?.element).toMatch(/Submit/);
      await tab('Runs');
      await expectCount(page.locator('.waiting-strip li'), 2);
      await expectText(page.locator('.waiting-badge'), /^2 waiting for you$/);
      await shot('runs');

      for (const runId of [runIds.anand, runIds.otp]) {
        await page.locator(`.run-table tr[data-run="${runId}"]`).getByRole('link', { name: 'Open' }).click();
        await page.locator('.approval-card').waitFor();
        await page.keyboard.press('a');
        const header = page.locator('.status-header[data-status="done"]');
        await header.waitFor({ timeout: RUN_MS });
        const view = await statusOf(runId);
        expect(view.run.status).toBe('done');
        await expectText(header, `Application number ${view.run.applicationNumber}`);
        if (runId === runIds.anand) await shot('run-done');
        await tab('Runs');
      }

      // The log names each action, its element, the verdict and the case field behind a typed value.
      await openRun(runIds.anand);
      const log = page.locator('.step-log');
      await expectText(log.locator('.action', { hasText: 'Business name' }).first(), 'business_name');
      await expectText(log.locator('.action', { hasText: 'Business name' }).first(), 'Anand Bakery and Café');
      await log.locator('.verdict-needs_approval').first().waitFor({ state: 'visible' });
      await expectText(log.locator('.approval-approve').first(), 'approved by test-clerk');
      expect(lab.submissions({ clientId: 'anand-bakery' })).toHaveLength(1);
      expect(lab.submissions({ clientId: 'aditya-deshpande' })).toHaveLength(1);
      // The code run's log says the clerk gave each code (after a new one was sent the question starts afresh, with no
      // complaint to answer) and asked for a new one, and holds neither code.
      const otpSteps = (await service.handle('listSteps', { runId: runIds.otp })) as StepRecord[];
      const otpEvents = otpSteps.flatMap((s) => s.events);
      expect(otpEvents.filter((e) => e.type === 'otp').map((e) => e.message)).toEqual([
        expect.stringMatching(/^The clerk gave the one-time code •{4,}; code typed it into the portal$/),
        expect.stringMatching(/^The clerk gave the one-time code •{4,}; code typed it into the portal$/),
      ]);
      expect(otpEvents.filter((e) => e.type === 'otp_resend').map((e) => e.message)).toEqual([expect.stringMatching(/^The clerk asked for a new code: code pressed "Send a new code"$/)]);
      expect(JSON.stringify(otpSteps)).not.toContain(code);
    },
    RUN_MS * 4,
  );

  it('replays a run step by step with the arrow keys, shows the chain intact and exports the HTML report', async ({ onTestFailed }) => {
    onTestFailed(() => diagnose('replay'));
    await tab('Runs');
    await page.locator(`.run-table tr[data-run="${runIds.anand}"]`).getByRole('link', { name: 'Replay' }).click();
    await page.waitForURL(/#\/replay\//);
    const verify = page.getByRole('status', { name: 'Chain verification' });
    await expectText(verify, /Intact — \d+ steps verified/, 30_000);
    const position = page.locator('.scrub-pos');
    await expectText(position, /^#0 · 1 of \d+$/);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expectText(position, /^#3 · 4 of/);
    await page.keyboard.press('ArrowLeft');
    await expectText(position, /^#2 · 3 of/);
    await expectText(page.locator('.step-detail h2'), '#2');
    // Before and after, side by side.
    await page.locator('.step-detail .shot-large img').first().waitFor();
    await expect.poll(() => page.locator('.step-detail .shot-large img').count(), { timeout: 20_000 }).toBe(2);
    await shot('replay');

    // The filmstrip: one frame per recorded step, each with its number and title, a verdict colour and a duration.
    const steps = (await service.handle('listSteps', { runId: runIds.anand })) as StepRecord[];
    const frames = page.locator('.filmstrip .frame');
    await expectCount(frames, steps.length);
    const titles = await page.locator('.filmstrip .frame-title').allInnerTexts();
    expect(titles.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(steps.map((s) => expect.stringMatching(new RegExp(`^#${s.index} \\S`))));
    expect(await page.locator('.filmstrip .frame-ms').allInnerTexts()).toEqual(steps.map(() => expect.stringMatching(/^\d+(\.\d)? (ms|s)$|^\d+ min \d\d s$/)));
    // The submit was held for the clerk and approved: that step's frame is amber, the plain fills green.
    expect(await page.locator('.filmstrip .frame-approval').count()).toBeGreaterThan(0);
    expect(await page.locator('.filmstrip .frame-allowed').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.filmstrip img.frame-thumb').count(), { timeout: 20_000 }).toBe(steps.filter((s) => s.screenshotHash).length);
    // A click goes to that step; the arrow keys go on from there.
    await frames.nth(5).click();
    await expectText(position, /^#5 · 6 of/);
    expect(await frames.nth(5).getAttribute('aria-current')).toBe('step');
    await expectText(page.locator('.step-detail h2'), '#5');
    await page.keyboard.press('ArrowLeft');
    await expectText(position, /^#4 · 5 of/);
    expect(await frames.nth(4).getAttribute('aria-current')).toBe('step');
    // What the chain proves and cannot, as the store's verify says it.
    const verified = (await service.handle('verifyRun', { runId: runIds.anand })) as VerifyResult;
    expect(verified).toMatchObject({ ok: true, format: 2, covers: expect.arrayContaining([expect.any(String)]), cannot: expect.stringContaining('--heads') });
    await page.locator('.verify-scope summary').click();
    await expectText(page.locator('.verify-scope'), 'Cannot prove');
    await page.locator('.verify-scope summary').click();
    await page.setViewportSize({ width: 1280, height: 720 });
    await shot('replay-filmstrip');
    await page.setViewportSize({ width: 1440, height: 960 });

    // The gated step (the submit the clerk approved): before and after side by side, the whole page in a frame that scrolls,
    // and the commit gate's judgement of the submit in the requests pane with its rule.
    const gated = steps.findIndex((s) => s.actions.some((a) => a.verdict.verdict === 'needs_approval'));
    expect(gated).toBeGreaterThan(0);
    expect(steps[gated]!.fullPageHash).toMatch(/^[0-9a-f]{64}$/);
    const withoutAfter = steps.filter((s) => typeof s.afterScreenshotHash !== 'string').map((s) => ({ index: s.index, actions: s.actions.map((a) => a.action.type), events: s.events.map((e) => `${e.type}: ${e.message}`) }));
    expect(withoutAfter, JSON.stringify(withoutAfter)).toEqual([]);
    await frames.nth(gated).click();
    await expectText(position, new RegExp(`^#${steps[gated]!.index} · `));
    expect(await frames.nth(gated).locator('.frame-fullpage').count()).toBe(1);
    const pictures = page.locator('.step-detail .replay-pictures-two figure');
    await expectCount(pictures, 2);
    await expect.poll(() => pictures.locator('img').count(), { timeout: 20_000 }).toBe(2);
    expect(await pictures.nth(1).locator('figcaption').innerText()).toMatch(/^After: once the actions ran/);
    const fullPage = page.getByRole('region', { name: `Full page at step ${steps[gated]!.index}` });
    const frame = fullPage.locator('.fullpage-scroll');
    await frame.locator('img').waitFor({ state: 'visible', timeout: 20_000 });
    await expect.poll(() => frame.evaluate((el) => el.scrollHeight > el.clientHeight + 100)).toBe(true);
    await expectText(page.getByRole('region', { name: 'Requests' }).locator('table'), /commit-gate:submit-path/);
    await shot('replay-gated-step');
    await fullPage.scrollIntoViewIfNeeded();
    await shot('replay-full-page');
    await frame.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await shot('replay-full-page-bottom');

    await page.keyboard.press('End');
    await expectText(page.locator('.step-detail'), /proof: SHP-/);

    // The console's process writes the report owner-only and says where; nothing is downloaded.
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await page.getByRole('button', { name: 'Export HTML report' }).click();
    const saved = page.getByRole('status', { name: 'Report saved' });
    await expectText(saved, /^Saved to \/.+\.html \(\d+ KB, readable by you only\)$/);
    const path = /^Saved to (\/.+\.html) \(/.exec(await saved.innerText())![1]!;
    expect(path).toBe(join(storeDir, 'reports', `${runIds.anand}.html`));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(downloads).toBe(0);
    const html = readFileSync(path, 'utf8');
    const run = (await statusOf(runIds.anand)).run;
    expect(html).toContain(run.applicationNumber!);
    expect(html).toContain('<meta http-equiv="Content-Security-Policy"');
  }, 120_000);

  it('names the run field a tamper touched in the replay', async ({ onTestFailed }) => {
    onTestFailed(() => diagnose('replay-tampered'));
    const raw = new Database(join(storeDir, 'runs.sqlite'));
    try {
      raw.prepare("UPDATE runs SET reason = 'Submitted (checked by hand)' WHERE id = ?").run(runIds.otp);
    } finally {
      raw.close();
    }
    await page.evaluate((hash) => (window.location.hash = hash), `#/replay/${encodeURIComponent(runIds.otp)}`);
    const verify = page.getByRole('status', { name: 'Chain verification' });
    await expectText(verify, /^Broken at step \d+/, 30_000);
    await expectText(verify.locator('.verify-field'), /field reason/);
    await shot('replay-tampered');
  }, 60_000);

  it('hides Chromium’s own refused requests in the replay, counted, and keeps the page’s', async ({ onTestFailed }) => {
    onTestFailed(() => diagnose('replay-noise'));
    // Two refused autofill / safe-browsing lookups and one refused request of the page, in step 2's raw log.
    // Steps are append-only: writing one takes dropping the trigger, as someone with the file could, and the chain catches it.
    const raw = new Database(join(storeDir, 'runs.sqlite'));
    let noise = 0;
    let logged: NonNullable<StepRecord['requests']> = [];
    try {
      const row = raw.prepare('SELECT json FROM steps WHERE run_id = ? AND idx = 2').get(runIds.anand) as { json: string };
      const step = JSON.parse(row.json) as StepRecord;
      // What the egress lock logged itself: Chromium's own refused lookups among it are counted apart too.
      logged = step.requests ?? [];
      noise = logged.filter((r) => r.outcome === 'refused' && /(googleapis|gstatic|google|gvt1)\.com$/.test(r.host)).reduce((n, r) => n + r.count, 0);
      const at = step.startedAt;
      step.events.push(
        { type: 'request_blocked', message: 'Stopped a other request to content-autofill.googleapis.com: not one of the portal’s addresses', at },
        { type: 'request_blocked', message: 'Stopped a other request to safebrowsingohttpgateway.googleapis.com: not one of the portal’s addresses', at },
        { type: 'request_blocked', message: 'Stopped a script request to tracker.evil.example: not one of the portal’s addresses', at },
      );
      raw.exec('DROP TRIGGER steps_no_update');
      raw.prepare('UPDATE steps SET json = ? WHERE run_id = ? AND idx = 2').run(JSON.stringify(step), runIds.anand);
    } finally {
      raw.close();
    }
    await page.reload();
    await page.evaluate((hash) => (window.location.hash = hash), `#/replay/${encodeURIComponent(runIds.anand)}`);
    await expectText(page.getByRole('status', { name: 'Chain verification' }), /^Broken at step 2/, 30_000);
    await page.locator('.filmstrip .frame').nth(2).click();
    await expectText(page.locator('.step-detail h2'), '#2');
    // The requests pane: the page's refused request listed with the rule, Chromium's own counted apart.
    const requests = page.getByRole('region', { name: 'Requests' });
    await expectText(requests.locator('.events-hidden'), new RegExp(`^${2 + noise} browser background requests hidden`));
    // The line is the network lock's (the page's own routing stopped it): the pane says which lock.
    const row = requests.locator('tr.request-refused', { hasText: 'tracker.evil.example' });
    await expectText(row, /refused/);
    await expectText(row, /network lock/);
    await expectText(row, /hosts/);
    // What the egress lock let through, from its log: each distinct request once, repeats counted.
    const sent = logged.filter((r) => r.outcome === 'sent');
    expect(sent.length).toBeGreaterThan(0);
    await expectCount(requests.locator('tr.request-sent', { hasText: 'egress-lock:portal-hosts' }), sent.length);
    // One time format, UTC in the tooltip.
    expect(await requests.locator('time').first().getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await requests.locator('table').innerText()).not.toContain('googleapis.com');
    await requests.scrollIntoViewIfNeeded();
    await shot('replay-noise');
  }, 60_000);

  it('shows "purged" in the filmstrip for the screenshots retention dropped', async ({ onTestFailed }) => {
    onTestFailed(() => diagnose('replay-purged'));
    const store = openStore(join(storeDir, 'runs.sqlite'));
    try {
      const purged = await store.purge({ olderThanMs: 0 });
      expect(purged.screenshots).toBeGreaterThan(0);
    } finally {
      store.close();
    }
    await page.reload();
    await page.evaluate((hash) => (window.location.hash = hash), `#/replay/${encodeURIComponent(runIds.otp)}`);
    const steps = (await service.handle('listSteps', { runId: runIds.otp })) as StepRecord[];
    await expectCount(page.locator('.filmstrip .frame'), steps.length);
    await expect.poll(() => page.locator('.filmstrip .frame-none').allInnerTexts(), { timeout: 20_000 }).toEqual(steps.map((s) => (s.screenshotHash ? 'purged' : 'no screenshot')));
    expect(await page.locator('.filmstrip img.frame-thumb').count()).toBe(0);
    await shot('replay-purged');
  }, 60_000);

  it('manages portal logins without ever showing a password', async () => {
    await tab('Settings');
    const form = page.locator('.credential-form');
    await form.getByLabel('Client id').fill('demo-client');
    await form.getByLabel('Portal').selectOption('power');
    await form.getByLabel('Username').fill('demo.user');
    await form.getByLabel('Password').fill('Very-Secret-Pass-91');
    await form.getByRole('button', { name: 'Save login' }).click();
    const row = page.locator('[data-credential="demo-client/power"]');
    await row.waitFor();
    await expectText(row, 'demo.user');
    expect(await page.content()).not.toContain('Very-Secret-Pass-91');
    await expectText(page.getByRole('region', { name: 'Planner and model' }), 'ANTHROPIC_API_KEY is not set');
    await expectText(page.getByRole('region', { name: 'Portals' }), 'shops.portal.example');
    await shot('settings');
    await row.getByRole('button', { name: /Remove/ }).click();
    await row.waitFor({ state: 'detached' });
  }, 60_000);

  it(
    'pauses at a CAPTCHA for the clerk; a clerk who declines to take over ends the run blocked, and can start the case again',
    async ({ onTestFailed }) => {
      onTestFailed(() => diagnose('captcha'));
      lab.configure('srinivas-iyer', { captcha: 'signin' });
      const blockedRun = await startCase('shops-renewal-srinivas-iyer');
      const card = page.getByRole('region', { name: 'Bot check' });
      await card.waitFor({ timeout: RUN_MS });
      expect((await statusOf(blockedRun)).pendingTakeOver).toMatchObject({ state: 'offered', reason: 'bot_check' });
      await shot('run-bot-check');
      await card.getByRole('button', { name: /Decline/ }).click();
      const header = page.locator('.status-header[data-status="blocked"]');
      await header.waitFor({ timeout: RUN_MS });
      await expectText(header, 'Blocked — bot check not taken over');
      expect((await statusOf(blockedRun)).run.reason).toMatch(/^bot_challenge: .*test-clerk declined to take over/);
      await shot('run-blocked');
      // Starting the case again is a new run (the declined one stays blocked).
      await page.getByRole('button', { name: 'Start the case again' }).click();
      await expect.poll(() => page.url(), { timeout: 30_000 }).not.toContain(blockedRun);
      expect((await statusOf(blockedRun)).run.status).toBe('blocked');
    },
    RUN_MS * 2,
  );

  it('raised no page errors and no CSP violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
