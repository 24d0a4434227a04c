import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../src/agent/browser/chromium';
import { buildRunReport } from '../../src/audit';
import { sha256Hex } from '../../src/base/canonical-json';
import type { StepEvent } from '../../src/shared/run';
import { openStore, type Store } from '../../src/store';
import { buildStep, newRun } from '../store/fixtures';
import { openReport, tempDir, type OpenedReport } from './support';

/**
 * The report's new panes, rendered in Chromium: a step's before and after pictures side by side,
 * the full page of a gated step in a box that scrolls, the requests pane (let through and
 * refused, with the rule; Chromium's own requests counted, not listed) and the page errors.
 * Pictures are real screenshots of a form page; the report is kept as PNGs under
 * test-artifacts/report/ for a person to look at.
 */
const ARTIFACTS = join(__dirname, '../../test-artifacts/report');
const RUN = 'run-2026-03-02-r1';
let browser: Browser;
let store: Store;
let report: OpenedReport;
let page: Page;
let html: string;

const FORM = (title: string, note: string, tall = false) => `<body style="margin:0;font:16px system-ui;background:#f4f6f8">
<header style="background:#17324d;color:#fff;padding:14px 20px;font-weight:600">Shop registration renewal</header>
<main style="padding:20px"><h1 style="font-size:22px">${title}</h1><p>${note}</p>
<label>Business name <input value="Lakshmi Stores" style="font-size:16px"></label>
${tall ? '<div style="height:1500px;margin-top:20px;padding:10px;border:2px dashed #999;background:linear-gradient(#fff,#dbe7f3)">Declaration: I confirm the details above are correct. (the long terms of the declaration, below the fold)</div><p style="font-weight:700">Bottom of the page: Submit application</p>' : ''}
<p><button style="font-size:16px">Continue</button></p></main></body>`;

async function picture(markup: string, fullPage = false): Promise<Buffer> {
  const p = await browser.newPage({ viewport: { width: 800, height: 560 } });
  try {
    await p.setContent(markup);
    return await p.screenshot({ type: 'png', fullPage });
  } finally {
    await p.close();
  }
}

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  store = openStore(join(tempDir(), 'runs.sqlite'));
  await store.createRun(newRun({ id: RUN }));
  const at = '2026-03-02T09:15:20.000Z';
  for (let i = 0; i < 3; i++) {
    const before = await picture(FORM(`Step ${i + 1} of 3`, 'Before the agent acted.', i === 2));
    const after = await picture(FORM(`Step ${i + 1} of 3`, `After: the fields of step ${i + 1} are filled.`, i === 2));
    const events: StepEvent[] = [];
    if (i === 1) {
      events.push(
        { type: 'request_blocked', message: 'Stopped a other request to content-autofill.googleapis.com: not one of the portal’s addresses', at },
        { type: 'request_blocked', message: 'Stopped a script request to tracker.evil.example: not one of the portal’s addresses', at },
        { type: 'page_error', message: 'TypeError: postcodeLookup is not a function', at },
        { type: 'load_failed', message: 'GET https://shops.lab.portal-desk.test/img/logo.png (image) did not load: net::ERR_CONNECTION_REFUSED', at },
      );
    }
    if (i === 2) {
      events.push({
        type: 'commit_approved',
        message: 'Sent POST https://shops.lab.portal-desk.test/renewal/submit, approved by Anna Byrne (a submit path)',
        at,
        request: { method: 'POST', url: 'https://shops.lab.portal-desk.test/renewal/submit', outcome: 'sent', rule: 'commit-gate:submit-path' },
      });
    }
    const { step } = buildStep(RUN, i, { screenshot: before, approval: i === 2 ? { decision: 'approve', by: 'Anna Byrne' } : undefined, events });
    step.afterScreenshotHash = sha256Hex(after);
    let fullPage: Buffer | null = null;
    if (i === 2) {
      fullPage = await picture(FORM('Step 3 of 3', 'Before the agent acted.', true), true);
      step.fullPageHash = sha256Hex(fullPage);
    }
    await store.recordStep(step, before, { after, fullPage });
  }
  await store.updateRun(RUN, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-118842', endedAt: '2026-03-02T09:16:00.000Z' });
  const built = await buildRunReport(store, RUN);
  html = built.html;
  const file = join(tempDir(), 'report.html');
  writeFileSync(file, html);
  report = await openReport(browser, file);
  page = report.page;
}, 120_000);

afterAll(async () => {
  await report?.close();
  store?.close();
  await browser?.close();
});

describe('the report’s pictures and panes in Chromium', () => {
  it('shows before and after side by side at every step, inline, and made no request', async () => {
    for (let i = 0; i < 3; i++) {
      const figures = page.locator(`section#step-${i} .pictures.two figure.shot`);
      expect(await figures.count()).toBe(2);
      expect(await figures.nth(0).locator('figcaption').innerText()).toMatch(/^Before: the page as read/);
      expect(await figures.nth(1).locator('figcaption').innerText()).toMatch(/^After: once the actions ran/);
      const boxes = await figures.locator('img').evaluateAll((imgs) => imgs.map((img) => img.getBoundingClientRect().top));
      expect(Math.abs(boxes[0]! - boxes[1]!)).toBeLessThan(2);
    }
    expect(await page.locator('img').evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
    expect(report.requests.filter((u) => !u.startsWith('data:'))).toEqual([]);
    await page.locator('section#step-1').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'report-step-panes.png') });
  });

  it('shows the full page of the gated step in a box that scrolls to the bottom of the page', async () => {
    const box = page.locator('section#step-2 figure.fullpage .scroll');
    expect(await box.count()).toBe(1);
    const { scrollHeight, clientHeight } = await box.evaluate((el) => ({ scrollHeight: el.scrollHeight, clientHeight: el.clientHeight }));
    expect(clientHeight).toBeLessThanOrEqual(720);
    expect(scrollHeight).toBeGreaterThan(clientHeight * 1.5);
    expect(await page.locator('figure.fullpage').count()).toBe(1);
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'report-full-page-top.png') });
    await box.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.screenshot({ path: join(ARTIFACTS, 'report-full-page-bottom.png') });
  });

  it('lists requests with outcome and rule, counts Chromium’s own, and lists the page errors', async () => {
    const rows = page.locator('section#step-1 table.requests tbody tr');
    expect(await rows.count()).toBe(1);
    const row = (await rows.first().innerText()).replace(/\s+/g, ' ');
    // The network lock's line (the page's own routing), not the egress lock's: it says which.
    expect(row).toMatch(/refused tracker\.evil\.example Stopped a script request .* network lock hosts/);
    expect(await page.locator('section#step-1 .requests-block').innerText()).toMatch(/1 browser-internal request refused/);
    expect(html).not.toMatch(/<td[^>]*>[^<]*content-autofill/);
    const sent = (await page.locator('section#step-2 table.requests tbody tr').innerText()).replace(/\s+/g, ' ');
    expect(sent).toMatch(/let through POST https:\/\/shops\.lab\.portal-desk\.test\/renewal\/submit .*commit gate commit-gate:submit-path/);
    const errors = await page.locator('section#step-1 .page-errors li').allInnerTexts();
    expect(errors.map((e) => e.replace(/\s+/g, ' '))).toEqual([expect.stringMatching(/^script error .*TypeError: postcodeLookup is not a function/), expect.stringMatching(/^failed load .*logo\.png/)]);
    // The events list no longer repeats what the panes show.
    expect(await page.locator('section#step-1 ul.events:not(.page-errors)').count()).toBe(0);
  });
});
