import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReplay, Replay, REPORT_CSP } from '../../src/audit';
import { labAccount } from '../../lab';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import type { StepRecord } from '../../src/shared/run';
import { verifyExport, type Store } from '../../src/store';
import { REPO, runCli, type CliResult } from '../support/cli';
import { EngineBench } from '../support/engine';
import { openRecordedShopsRun } from '../support/recorded-run';
import { openReport, tempDir, type OpenedReport } from './support';

/**
 * One real lab run (the shops renewal, in Chromium, recorded in SQLite), replayed through the
 * real CLI into the three outputs at once, then the HTML opened in Chromium like an auditor would.
 */
const CASE = 'shops-renewal-anand-bakery.json';

let bench: EngineBench;
let store: Store;
let runId: string;
let steps: StepRecord[];
let out: string;
let cli: CliResult;
let report: OpenedReport;

beforeAll(async () => {
  bench = await new EngineBench().start();
  // The run this file reads, recorded once for every file that only reads it (test/support/recorded-run.ts).
  ({ store, runId, steps } = await openRecordedShopsRun(bench));
  out = tempDir();
  cli = await runCli(['replay', runId, '--db', store.path, '--export', join(out, 'report.html'), '--export-json', join(out, 'run.json'), '--json'], { timeoutMs: 170_000 });
  report = await openReport(bench.browser, join(out, 'report.html'));
}, 300_000);

afterAll(async () => {
  await report?.close();
  store?.close();
  await bench?.stop();
});

describe('replay --export / --export-json / --json on a real lab run', () => {
  it('writes all three, owner-only, and says the chain is intact', () => {
    expect(cli.code, cli.stderr).toBe(0);
    for (const f of ['report.html', 'run.json']) {
      expect(existsSync(join(out, f))).toBe(true);
      expect(statSync(join(out, f)).mode & 0o777).toBe(0o600);
    }
    expect(cli.stderr).toMatch(/wrote .*report\.html: report \(\d+ steps/);
    expect(cli.stderr).toMatch(/^intact \(\d+ steps, \d+ audit events, head [0-9a-f]{64}\)$/m);
  });

  it('--json prints the replay: schema-valid, every step in order with verdicts, approvals and provenance', async () => {
    const replay = Replay.parse(JSON.parse(cli.stdout));
    expect(replay.run.id).toBe(runId);
    expect(replay.verify).toMatchObject({ ok: true, steps: steps.length });
    expect(replay.steps.map((s) => s.index)).toEqual(steps.map((s) => s.index));
    expect(replay.steps.every((s) => s.kind === 'step' && s.integrity === 'verified')).toBe(true);
    // The clerk's approval of the submit is there, with who decided.
    expect(replay.approvals).toEqual([expect.objectContaining({ decision: 'approve', by: 'test-clerk', rule: 'risky-control' })]);
    // Values typed into the form carry their provenance, and the case value.
    const fill = replay.steps.flatMap((s) => (s.kind === 'step' ? s.actions : [])).find((a) => a.action.type === 'fill' && a.action.field === 'business_name');
    expect(fill?.provenance).toEqual({ source: 'case', field: 'business_name', value: 'Anand Bakery and Café', withheld: false });
    expect(replay.run.applicationNumber).toMatch(/^SHP-\d{4}-\d{6}$/);
    // The same data the API gives the console (generatedAt aside).
    const direct = await loadReplay(store, runId);
    expect({ ...direct, generatedAt: '' }).toEqual({ ...replay, generatedAt: '' });
  });

  it('--export-json writes the store’s verifiable export', () => {
    const exp = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(exp.format).toBe('portal-desk.run-export');
    expect(verifyExport(exp)).toMatchObject({ ok: true, steps: steps.length });
  });

  it('the HTML shows every step with its heading and its screenshot, inline', async () => {
    const { page } = report;
    const withShots = steps.filter((s) => s.screenshotHash !== null);
    expect(withShots.length).toBeGreaterThan(3);
    // Each step's pictures: before, after (once its actions ran), and the full page at a gated step.
    const picturesOf = (s: StepRecord) => [s.screenshotHash, s.afterScreenshotHash, s.fullPageHash].filter((h) => typeof h === 'string').length;
    const pictures = steps.reduce((n, s) => n + picturesOf(s), 0);
    // The index's filmstrip shows each step's before picture, small, beside its title, verdict marks and duration.
    const thumbs = page.locator('nav.index img.thumb');
    expect(await thumbs.count()).toBe(withShots.length);
    const images = page.locator('section img[src^="data:image/png;base64,"]');
    expect(await images.count()).toBe(pictures);
    expect(await page.locator('img').count()).toBe(pictures + withShots.length);
    // Every inline screenshot actually decodes.
    expect(await images.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
    for (const s of steps) {
      const section = page.locator(`section#step-${s.index}`);
      await expect.poll(() => section.count()).toBe(1);
      expect(await section.locator('h2').innerText()).toMatch(new RegExp(`^Step ${s.index}`));
      expect(await section.locator('img[src^="data:"]').count()).toBe(picturesOf(s));
      // The index links to it, with its thumbnail where the step has a picture.
      expect(await page.locator(`nav.index a[href="#step-${s.index}"]`).count()).toBe(1);
      expect(await page.locator(`nav.index a[href="#step-${s.index}"] img.thumb`).count()).toBe(s.screenshotHash !== null ? 1 : 0);
    }
  });

  it('keeps an after picture at every step and the whole page at each gated step, shown in the report', async () => {
    expect(steps.every((s) => typeof s.afterScreenshotHash === 'string')).toBe(true);
    const gated = steps.filter((s) => s.actions.some((a) => a.verdict.verdict === 'needs_approval') || s.events.some((e) => e.type === 'commit_approved' || e.type === 'commit_denied'));
    expect(gated.length).toBeGreaterThan(0);
    for (const s of steps) expect(s.fullPageHash !== undefined, `step ${s.index}`).toBe(gated.includes(s));
    const { page } = report;
    for (const s of gated) expect(await page.locator(`section#step-${s.index} figure.fullpage .scroll img`).count()).toBe(1);
    // The commit gate's judgement of the submit is in the requests pane with its rule.
    const submit = gated.at(-1)!;
    const requests = page.locator(`section#step-${submit.index} table.requests`);
    if (submit.events.some((e) => e.request)) expect(await requests.innerText()).toMatch(/commit-gate:/);
    await page.locator(`section#step-${submit.index}`).scrollIntoViewIfNeeded();
    mkdirSync(join(REPO, 'test-artifacts/report'), { recursive: true });
    await page.screenshot({ path: join(REPO, 'test-artifacts/report/lab-run-gated-step.png') });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(REPO, 'test-artifacts/report/lab-run-filmstrip.png') });
    await page.locator(`section#step-${submit.index} figure.fullpage`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(REPO, 'test-artifacts/report/lab-run-full-page.png') });
  });

  it('the requests pane lists what the egress lock let through and refused as data, repeats counted, no query value, Chromium’s own left out of view', async () => {
    const logged = steps.flatMap((s) => (s.requests ?? []).map((r) => ({ step: s.index, ...r })));
    const host = new URL(loadPortalProfile(bench.caseFile(CASE).portal).startUrl).hostname;
    // Every page of the run came through the lock: GETs of the portal's pages and the form posts, on the portal's host.
    expect(logged.filter((r) => r.outcome === 'sent' && r.method === 'GET' && r.host === host).length).toBeGreaterThan(steps.length / 2);
    expect(logged.some((r) => r.outcome === 'sent' && r.method === 'POST' && r.host === host)).toBe(true);
    expect(logged.every((r) => r.outcome === 'refused' || (r.host === host && r.rule === 'egress-lock:portal-hosts'))).toBe(true);
    expect(logged.every((r) => r.path === null || !/=[^…&]/.test(r.path.split('?')[1] ?? ''))).toBe(true);
    // Each step keeps the sha256 of what it logged, and the chain covers both.
    for (const s of steps) if (s.requests) expect(s.requestsSha256).toMatch(/^[0-9a-f]{64}$/);
    const { page } = report;
    const withPost = logged.find((r) => r.method === 'POST' && r.outcome === 'sent')!;
    const rows = page.locator(`section#step-${withPost.step} table.requests tbody tr`);
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    expect(texts.some((t) => new RegExp(`let through POST http://${host.replace(/\./g, '\\.')}(:\\d+)?${withPost.path!.replace(/[.?*+()[\]]/g, '\\$&')}`).test(t) && /egress lock egress-lock:portal-hosts/.test(t))).toBe(true);
    // Chromium's own refused requests (autofill and the like) are counted apart, never a row.
    const noise = logged.filter((r) => r.outcome === 'refused' && /(googleapis|gstatic|google)\.com$/.test(r.host));
    for (const r of noise) expect(await page.locator(`section#step-${r.step} table.requests`).innerText().catch(() => '')).not.toContain(r.host);
    await page.locator(`section#step-${withPost.step} .requests-block`).scrollIntoViewIfNeeded();
    mkdirSync(join(REPO, 'test-artifacts/report'), { recursive: true });
    await page.screenshot({ path: join(REPO, 'test-artifacts/report/lab-run-requests.png') });
  });

  it('the HTML made no requests, carries the strict CSP, and has a sticky step index', async () => {
    const { page, requests, routed } = report;
    expect(requests.filter((u) => !u.startsWith('data:'))).toEqual([]);
    expect(routed).toEqual([]);
    expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(REPORT_CSP);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('link, iframe, object, embed, form').count()).toBe(0);
    expect(await page.locator('nav.index').evaluate((n) => getComputedStyle(n).position)).toBe('sticky');
  });

  it('the header names case, client, portal, task, planner, status, application number and the verified head', async () => {
    const { page } = report;
    const run = (await store.getRun(runId))!;
    const header = await page.locator('header#summary').innerText();
    for (const text of [run.caseId, run.clientId, run.portal, run.task, run.planner, run.applicationNumber!, run.headHash!]) expect(header).toContain(text);
    expect(header).toMatch(/Chain intact — \d+ steps, \d+ audit events and the outcome verified/);
    expect(header).toContain(run.reason!);
    // The approval step shows the verdict chip, the rule, who approved.
    const submit = page.locator('table.actions tr.needs_approval');
    expect(await submit.count()).toBe(1);
    expect(await submit.innerText()).toMatch(/needs approval[\s\S]*risky-control[\s\S]*approved[\s\S]*test-clerk/);
    // Sign-in is an event of its step, the password box noted, no password anywhere.
    expect(await page.locator('ul.events').first().innerText()).toMatch(/Sign in/);
  });

  it('no local path appears in the HTML: not the store’s, not the receipt’s, not the machine’s temporary folder', () => {
    const htmlText = readFileSync(join(out, 'report.html'), 'utf8');
    const folder = dirname(store.path);
    for (const local of [store.path, folder, join(folder, 'receipts'), tmpdir(), homedir()]) expect(htmlText, local).not.toContain(local);
    // The receipt the run kept is still named (by its file name), without where it lies.
    const receipt = steps.flatMap((s) => s.events).find((e) => e.type === 'receipt');
    expect(receipt).toBeDefined();
    expect(htmlText).toMatch(/…\/[0-9a-f]{64}\.html/);
  });

  it('no password appears in the HTML, the JSON or the export', () => {
    const password = labAccount(bench.caseFile(CASE).clientId).password;
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const exportText = readFileSync(join(out, 'run.json'), 'utf8');
    for (const text of [html, exportText, cli.stdout, cli.stderr]) {
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toContain(password);
      expect(text).not.toContain(JSON.stringify(password).slice(1, -1));
    }
    expect(html).not.toContain(password.replace('&', '&amp;'));
  });
});
