import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { CONTROL_ROLES } from '../../../src/agent/observe/aria-tree';
import { DomFactsSchema } from '../../../src/agent/observe/dom-facts';
import { DOM_FACTS_SOURCE, FIRST_UNSEEN_TEXT_SOURCE, QUIET_DOM_SOURCE } from '../../../src/agent/observe/page-code.generated';
import { pageCall } from '../../../src/agent/observe/page-function';

/**
 * The page code (src/page) as a module: the committed string is the build of its sources, it
 * leaves nothing behind in the page, and its helpers do what they say, each run in real Chromium.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
let browser: Browser;
let page: Page;

/** The helper modules the test calls in the page (what the dead-export check sees this test reach). */
/* eslint-disable @typescript-eslint/consistent-type-imports -- the dead-export check reads import('…') types as reaching each module's exports */
export type PageCode = typeof import('../../../src/page/text') &
  typeof import('../../../src/page/ids') &
  typeof import('../../../src/page/roles') &
  typeof import('../../../src/page/visibility') &
  typeof import('../../../src/page/labels') &
  typeof import('../../../src/page/controls') &
  typeof import('../../../src/page/errors') &
  typeof import('../../../src/page/step');
/* eslint-enable @typescript-eslint/consistent-type-imports */

/** The page code's helper modules bundled for the test page as `window.pageCode`. */
async function helperBundle(): Promise<string> {
  const modules = ['text', 'ids', 'roles', 'visibility', 'labels', 'controls', 'errors', 'step'];
  const result = await build({
    stdin: { contents: modules.map((m) => `export * from './src/page/${m}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'pageCode',
    platform: 'browser',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** Sets the page's body and runs `fn` with the helpers in the page. */
async function inPage<R>(html: string, fn: string): Promise<R> {
  await page.setContent(`<!doctype html><html><body>${html}</body></html>`);
  await page.addScriptTag({ content: HELPERS });
  return (await page.evaluate(`(() => { const h = window.pageCode; return (${fn})(h); })()`)) as R;
}

let HELPERS = '';
beforeAll(async () => {
  HELPERS = await helperBundle();
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
});

describe('the built page code', () => {
  it('is the build of src/page (npm run build:page --check)', () => {
    expect(() => execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-page-code.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('is one expression yielding the walk, with no toString-serialised function, no __name and no global left in the page', async () => {
    expect(DOM_FACTS_SOURCE).not.toMatch(/__name|toString\(\)|require\(|process\./);
    await page.setContent('<!doctype html><title>T</title><form action="/go"><label>Name <input name="n" required></label><button type="submit">Send</button></form>');
    const before = (await page.evaluate('Object.keys(window).length')) as number;
    const json = await page.evaluate(`JSON.stringify((${DOM_FACTS_SOURCE})(${JSON.stringify({ controlRoles: [...CONTROL_ROLES] })}))`);
    expect(await page.evaluate('Object.keys(window).length')).toBe(before);
    const facts = DomFactsSchema.parse(JSON.parse(json as string));
    expect(facts.title).toBe('T');
    expect(facts.controls.map((c) => [c.role, c.tag, c.required ?? false, c.action ?? null])).toEqual([
      ['textbox', 'input', true, null],
      ['button', 'button', false, '/go'],
    ]);
  });

  it('is refused by the observer schema when the page hands back something else', () => {
    const good = { url: 'u', baseUrl: 'u', title: '', controls: [], clickables: [], alerts: [], invalid: [], passwordFields: 0, anyGated: false, step: {} };
    expect(DomFactsSchema.safeParse(good).success).toBe(true);
    expect(DomFactsSchema.safeParse({ ...good, controls: [{ role: 1, tag: 'a' }] }).success).toBe(false);
    expect(DomFactsSchema.safeParse({ ...good, controls: [{ role: 'button', tag: 'button', gated: false }] }).success).toBe(false);
    expect(DomFactsSchema.safeParse({ ...good, alerts: [{ message: 'x', control: 0.5 }] }).success).toBe(false);
    expect(DomFactsSchema.safeParse({ ...good, step: undefined }).success).toBe(false);
  });
});

describe('page code helpers, in Chromium', () => {
  it('clean folds whitespace, zero-width spaces and soft hyphens, and cuts with an ellipsis', async () => {
    const out = await inPage<string[]>('', `(h) => [h.clean('  a\\u200b\\u00ad  b\\n c '), h.clean('abcdef', 4), h.clean(null)]`);
    expect(out).toEqual(['a b c', 'abc…', '']);
  });

  it('roleOf reads the first valid role token, implicit roles, and none/presentation yielding on focusable elements', async () => {
    const html = `<div id="a" role="bogus button"></div><button id="b" role="none">x</button><span id="c" role="presentation">x</span>
      <input id="d" type="search" list="dl"><datalist id="dl"></datalist><input id="e" type="file"><select id="f" multiple></select>
      <a id="g">no href</a><a id="h" href="/x">x</a><input id="i" type="number"><input id="j" type="hidden">`;
    const roles = await inPage<Record<string, string | null>>(html, `(h) => Object.fromEntries([...'abcdefghij'].map((id) => [id, h.roleOf(document.getElementById(id))]))`);
    expect(roles).toEqual({ a: 'button', b: 'button', c: 'presentation', d: 'combobox', e: 'button', f: 'listbox', g: null, h: 'link', i: 'spinbutton', j: null });
  });

  it('boxVisible: a display:contents wrapper is as visible as its children; hidden and empty boxes are not', async () => {
    const html = `<div id="a" style="display:contents"><span>text</span></div><div id="b" style="visibility:hidden">x</div>
      <div id="c" style="width:0;height:0;overflow:hidden">x</div><div id="d" style="display:none">x</div><div id="e">shown</div>`;
    const seen = await inPage<boolean[]>(html, `(h) => { const s = h.styleCache(); return ['a','b','c','d','e'].map((id) => h.boxVisible(document.getElementById(id), s)); }`);
    expect(seen).toEqual([true, false, false, false, true]);
  });

  it('rowLabel, columnHeader and iconName find a name for unlabelled controls', async () => {
    const html = `<table><tr><th>Item</th><th>Quantity</th></tr><tr><td>Shop name</td><td><input id="q"></td></tr></table>
      <div><span>Owner</span> <input id="o"></div><button id="s"><img alt="Search"></button><form><input id="f"></form>`;
    const out = await inPage<string[]>(html, `(h) => [h.rowLabel(q), h.columnHeader(q), h.rowLabel(o), h.iconName(s), h.rowLabel(f)]`);
    expect(out).toEqual(['Shop name', 'Quantity', 'Owner', 'Search', '']);
  });

  it("formAction reads formaction or the form's action attribute (a field named action does not shadow it); not for other buttons", async () => {
    const html = `<form action="/apply"><input name="action" value="x"><button id="a" type="submit">Go</button><button id="b" type="submit" formaction="/other">Go</button>
      <button id="c" type="button">No</button><input id="d" type="image" src="x.png"></form><form><button id="e">Here</button></form><button id="f" type="submit">Alone</button>`;
    const out = await inPage<(string | null)[]>(html, `(h) => ['a','b','c','d','e','f'].map((id) => h.formAction(document.getElementById(id)) ?? null)`);
    expect(out).toEqual(['/apply', '/other', null, '/apply', '', null]);
  });

  it('describeControl never reads a password, reads mixed checkboxes, select labels and inferred names', async () => {
    const html = `<input id="p" type="password" value="secret"><input id="m" type="checkbox"><select id="s"><option>One</option><option selected>Two</option></select>
      <table><tr><td>Phone</td><td><input id="t" value="123" aria-invalid="true" required></td></tr></table>`;
    const out = await inPage<Record<string, unknown>[]>(html, `(h) => { m.indeterminate = true; return [h.describeControl(p, 'textbox', false), h.describeControl(m, 'checkbox', true), h.describeControl(s, 'combobox', false), h.describeControl(t, 'textbox', false)]; }`);
    expect(out[0]).toMatchObject({ role: 'textbox', tag: 'input', type: 'password' });
    expect(out[0]).not.toHaveProperty('value');
    expect(out[1]).toMatchObject({ role: 'checkbox', type: 'checkbox', checked: 'mixed', gated: true });
    expect(out[2]).toMatchObject({ options: ['One', 'Two'], selected: ['Two'] });
    expect(out[3]).toMatchObject({ value: '123', required: true, invalid: true, inferred: 'Phone' });
  });

  it('errorTextOf, labelText and groupText name an invalid field, its error and its group', async () => {
    const html = `<fieldset><legend>Date of birth</legend><input id="d" aria-label="Day" aria-describedby="hint err"><p id="hint">For example 27</p><p id="err" class="error">Enter a day</p></fieldset>
      <label for="n">Full name</label><input id="n" aria-errormessage="nm"><span id="nm">Name is required</span>`;
    const out = await inPage<string[]>(html, `(h) => [h.errorTextOf(d), h.labelText(d), h.groupText(d), h.errorTextOf(n), h.labelText(n), h.groupText(n)]`);
    expect(out).toEqual(['Enter a day', 'Day', 'Date of birth', 'Name is required', 'Full name', '']);
  });

  it('alertsIn links summary items to their fields; flowStep reads the current step and the progress bar', async () => {
    const html = `<div class="govuk-error-summary"><ul><li><a href="#n">Enter your name</a></li></ul></div><label for="n">Name</label><input id="n">
      <ol><li>Start</li><li aria-current="step">Address</li><li>Review</li><li>Done</li></ol><div role="progressbar" aria-valuetext="Step 2 of 4"></div>`;
    const out = await inPage<[unknown, unknown]>(html, `(h) => [h.alertsIn(document, (el) => (el && el.id === 'n' ? 7 : -1)), h.flowStep(document)]`);
    expect(out[0]).toEqual([{ message: 'Enter your name', control: 7, label: 'Name' }]);
    expect(out[1]).toEqual({ current: 'Address', index: 2, count: 4, valueText: 'Step 2 of 4' });
  });

  it('firstUnseenText (the proof check) finds readably shown text and not text hidden by clipping, colour, size, opacity, position or a zero scale', async () => {
    const hidden = [
      '<p style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">Clipped SHP-1</p>',
      '<p style="color:#fefefe">White on white SHP-2</p>',
      '<p style="font-size:5px">Tiny SHP-3</p>',
      '<div style="opacity:0.2"><p>Faded SHP-4</p></div>',
      '<p style="position:absolute;left:-9999px">Off page SHP-5</p>',
      '<p style="transform:scale(0)">Scaled away SHP-6</p>',
      '<p style="visibility:hidden">Invisible SHP-7</p>',
      '<div style="background:#123456"><p style="color:#123457">Same as its backdrop SHP-8</p></div>',
    ].join('');
    await page.setContent(`<!doctype html><html><body><h1>Application submitted</h1><p>Your number is <b>SHP-0</b></p>${hidden}</body></html>`);
    const unseen = async (texts: string[]) => page.evaluate(pageCall(FIRST_UNSEEN_TEXT_SOURCE, texts));
    expect(await unseen(['application SUBMITTED', 'shp-0'])).toBeNull();
    for (let n = 1; n <= 8; n++) expect(await unseen(['Application submitted', `SHP-${n}`])).toBe(`SHP-${n}`);
    expect(FIRST_UNSEEN_TEXT_SOURCE + QUIET_DOM_SOURCE).not.toMatch(/__name|toString\(\)|require\(|process\./);
  });

  it('waitForQuietDom answers true once mutations stop, false when they go on past the cap', async () => {
    await page.setContent('<!doctype html><html><body><p id="t">0</p></body></html>');
    expect(await page.evaluate(pageCall(QUIET_DOM_SOURCE, { quietMs: 50, capMs: 1_000 }))).toBe(true);
    await page.evaluate('setInterval(() => { document.getElementById("t").textContent = String(Math.random()); }, 10)');
    expect(await page.evaluate(pageCall(QUIET_DOM_SOURCE, { quietMs: 100, capMs: 300 }))).toBe(false);
  });
});
