import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../src/agent/browser/chromium';
import { assertNoSecrets, buildRunReport, html, loadReplay, renderReportHtml, SecretInReportError } from '../../src/audit';
import { digest } from '../../src/base/canonical-json';
import { labAccount } from '../../lab';
import { StepRecord } from '../../src/shared/run';
import { openStore, type Store } from '../../src/store';
import { buildStep, newRun } from '../store/fixtures';
import { runCli } from '../support/cli';
import { openReport, tempDir } from './support';

/**
 * Page text is untrusted: an attack page puts markup in its title, headings, text, labels and
 * error messages. The report must show it as text and never run it. Synthetic steps recorded
 * through the store's API stand in for such a page.
 */
const ATTACKS = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=2">',
  '"><svg onload="window.__pwned=3">',
  "'><iframe src=\"javascript:window.__pwned=4\"></iframe>",
  '<a href="https://attacker.example/steal">click</a><link rel=stylesheet href="https://attacker.example/x.css">',
  '</pre></details><style>body{background:url(https://attacker.example/bg.png)}</style>',
];
const EVIL = ATTACKS.join(' ');
const RUN = 'run-20260302-091500-a77ack';

let dir: string;
let store: Store;
let browser: Browser;

/** A step whose every page-derived string carries the attacks. */
function attackStep(index: number): StepRecord {
  const { step } = buildStep(RUN, index, { approval: index === 1 ? { decision: 'approve', by: `clerk ${ATTACKS[1]}`, note: ATTACKS[0] } : undefined });
  const observation = {
    ...step.observation,
    url: `https://shops.lab.portal-desk.test/renewal?q=${encodeURIComponent(ATTACKS[0]!)}#"><script>window.__pwned=5</script>`,
    title: `Business address ${ATTACKS[0]}`,
    flowStep: `Step 2 of 4 ${ATTACKS[2]}`,
    headings: [`Renew ${ATTACKS[1]}`, ATTACKS[3]!],
    text: `Enter the address. ${EVIL}`,
    errors: [{ message: `Enter the town ${ATTACKS[1]}`, field: ATTACKS[2] }],
  };
  return StepRecord.parse({
    ...step,
    observation,
    observationHash: digest(observation),
    reasoning: `The page says ${ATTACKS[0]}; ignoring it.`,
    actions: step.actions.map((a) => ({ ...a, element: `button "${ATTACKS[1]}"`, outcome: { ...a.outcome, message: ATTACKS[4] } })),
    events: [{ type: `navigation_blocked${ATTACKS[2]}`, message: `Stopped the page going to ${ATTACKS[4]}`, at: step.startedAt }],
  });
}

beforeAll(async () => {
  dir = tempDir();
  store = openStore(join(dir, 'runs.sqlite'));
  await store.createRun(newRun({ id: RUN, clientId: 'anand-bakery', portal: 'shops', reason: ATTACKS[0] }));
  for (let i = 0; i < 3; i++) {
    const step = attackStep(i);
    const { png } = buildStep(RUN, i);
    await store.recordStep(step, png);
  }
  await store.updateRun(RUN, { status: 'failed', reason: `Stopped: ${ATTACKS[1]}`, endedAt: '2026-03-02T09:16:00.000Z', applicationNumber: ATTACKS[2] });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  store?.close();
  await browser?.close();
});

describe('the report shows attack text as text', () => {
  it('html`` escapes every interpolation and keeps nested markup', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'" onmouseover="x'}">${inner}${['<', 1, null, undefined, false]}</p>`.text).toBe(
      '<p title="&quot; onmouseover=&quot;x"><b>&lt;i&gt;</b>&lt;1</p>',
    );
  });

  for (const csp of [true, false]) {
    it(`nothing on an attack page runs in the report${csp ? '' : ' — even with the CSP taken out (escaping alone holds)'}`, async () => {
      const { html: page } = await buildRunReport(store, RUN);
      const text = csp ? page : page.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
      expect(text.includes('Content-Security-Policy')).toBe(csp);
      const file = join(dir, csp ? 'report.html' : 'report-no-csp.html');
      writeFileSync(file, text);
      const opened = await openReport(browser, file);
      try {
        const { page: tab } = opened;
        expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
        expect(await tab.locator('script, iframe, svg, link, style:not(head > style), a[href^="http"], a[href^="javascript"]').count()).toBe(0);
        expect(await tab.locator('head > style').count()).toBe(1);
        // No element carries an event handler attribute; every image is an inline screenshot.
        expect(await tab.evaluate(() => [...document.querySelectorAll('*')].some((el) => [...el.attributes].some((a) => a.name.startsWith('on'))))).toBe(false);
        // Three steps: each one's picture in its section and its thumbnail in the filmstrip.
        expect(await tab.locator('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src')!.slice(0, 22)))).toEqual(Array(6).fill('data:image/png;base64,'));
        expect(await tab.locator('img.thumb').count()).toBe(3);
        expect(opened.requests.filter((u) => !u.startsWith('data:'))).toEqual([]);
        expect(opened.dialogs).toEqual([]);
        // The attack is visible as the text it is, where the auditor reads it.
        const body = await tab.locator('body').innerText();
        expect(body).toContain('Business address <script>window.__pwned=1</script>');
        expect(body).toContain('<img src=x onerror="window.__pwned=2">');
        await tab.locator('#step-1 details.page-text summary').click();
        expect(await tab.locator('#step-1 details.page-text pre').innerText()).toBe(`Enter the address. ${EVIL}`);
        expect(await tab.locator('section.step').count()).toBe(3);
      } finally {
        await opened.close();
      }
    });
  }
});

describe('the final secret scan', () => {
  it('finds a secret as written, HTML-escaped or JSON-escaped, and never quotes it', () => {
    const secret = 'Pw&<"7x';
    for (const text of [`a ${secret} b`, `a ${'Pw&amp;&lt;&quot;7x'} b`, `{"a":"${'Pw&<\\"7x'}"}`]) {
      expect(() => assertNoSecrets(text, [secret])).toThrow(SecretInReportError);
      try {
        assertNoSecrets(text, [secret]);
      } catch (err) {
        expect((err as Error).message).not.toContain('Pw&');
      }
    }
    expect(() => assertNoSecrets('nothing here', [secret, 'ab'])).not.toThrow();
  });

  it('stops the report and the JSON when a recorded step holds a secret the store was not told about', async () => {
    // A redaction bug: the password reached a step and nobody registered it with the store.
    const leaky = openStore(join(dir, 'leaky.sqlite'));
    const password = labAccount('anand-bakery').password;
    await leaky.createRun(newRun({ id: 'run-leak', clientId: 'anand-bakery', portal: 'shops' }));
    const { step, png } = buildStep('run-leak', 0);
    const observation = { ...step.observation, text: `${step.observation.text} password: ${password}` };
    await leaky.recordStep({ ...step, observation, observationHash: digest(observation) }, png);
    const replay = await loadReplay(leaky, 'run-leak');
    leaky.close();
    expect(() => renderReportHtml(replay, { secrets: [password] })).toThrow(/Refused to write the HTML report/);
    // A caller may bring its own scan.
    const seen: string[] = [];
    renderReportHtml(replay, { secrets: [password], scan: (_text, secrets) => seen.push(...secrets) });
    expect(seen).toEqual([password]);

    // The CLI knows the lab password of the run's client and refuses to write anything.
    const out = join(dir, 'leak-out');
    const r = await runCli(['replay', 'run-leak', '--db', join(dir, 'leaky.sqlite'), '--export', `${out}.html`, '--export-json', `${out}.json`, '--json'], { timeoutMs: 170_000 });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/Refused to write the HTML report: it contains secret #1/);
    expect(r.stdout).toBe('');
    expect(existsSync(`${out}.html`) || existsSync(`${out}.json`)).toBe(false);
    expect(r.stderr + r.stdout).not.toContain(password);
  });
});
