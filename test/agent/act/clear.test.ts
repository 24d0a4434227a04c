import { describe, expect, it } from 'vitest';
import { executeAction } from '../../../src/agent/act/executor';
import { parseActOnPage } from '../../../src/agent/decide/anthropic/act-on-page';
import { checkAction } from '../../../src/agent/guard/guard';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import { Action } from '../../../src/shared/action';
import { describeAction } from '../../../src/shared/describe-action';
import type { Control } from '../../../src/shared/observation';
import { makeCase, makeProfile } from '../guard/fixtures';
import { useFixtureBrowser } from '../observe/fixture-pages';
import type { FixtureBrowser } from '../observe/fixture-server';

/** `clear`: empties a text box holding a stale or wrong value, and types nothing. Real Chromium. */

const browser = useFixtureBrowser();
const observer = new PageObserver();

const FORM = `<!doctype html><title>Business details</title><main><h1>Business details</h1>
<label for="name">Business name</label><input id="name" value="Old Shop Ltd (2019)">
<label for="notes">Notes</label><textarea id="notes">copied from the last application</textarea>
<label for="empty">Branch name</label><input id="empty">
<label for="pw">Password</label><input id="pw" type="password" value="secret">
<label><input type="checkbox" id="terms" checked> Send me updates</label>
<label for="district">District</label><select id="district"><option>North</option><option selected>South</option></select>
<button type="button" id="go">Continue</button></main>`;

async function openForm(): Promise<{ page: Awaited<ReturnType<FixtureBrowser['page']>>; read: LivePageRead }> {
  const page = await browser.page();
  await page.setContent(FORM);
  return { page, read: await observer.read(page) };
}

const find = (read: LivePageRead, name: string): Control => {
  const found = read.observation.controls.find((c) => c.name === name);
  if (!found) throw new Error(`no control "${name}"`);
  return found;
};

function guardOf(read: LivePageRead, readOnly = false) {
  const caseFile = makeCase(readOnly ? { read: { kind: 'status' } } : {});
  return (action: Action) =>
    checkAction(action, { profile: makeProfile(), caseFile, clerkValues: {}, observation: read.observation, control: (ref) => read.control(ref) });
}

describe('the clear action', () => {
  it('is in the action schema and the tool schema; the clerk reads that nothing is typed', () => {
    expect(Action.safeParse({ type: 'clear', ref: 'r1c2' }).success).toBe(true);
    expect(Action.safeParse({ type: 'clear', ref: 'r1c2', field: 'business_name' }).success).toBe(false);
    expect(parseActOnPage({ reasoning: 'stale', actions: [{ type: 'clear', ref: 'r1c2' }], want_screenshot: null })).toEqual({
      ok: true,
      turn: { reasoning: 'stale', actions: [{ type: 'clear', ref: 'r1c2' }] },
      wantScreenshot: false,
    });
    expect(describeAction({ type: 'clear', ref: 'r1c2' }, 'textbox "Business name"')).toBe('clear textbox "Business name" (empty it; nothing is typed)');
  });

  it('empties a text box and a text area holding stale values, and types nothing', async () => {
    const { page, read } = await openForm();
    const guard = guardOf(read);
    for (const [name, id] of [['Business name', '#name'], ['Notes', '#notes']] as const) {
      const action: Action = { type: 'clear', ref: find(read, name).ref };
      const verdict = guard(action);
      expect(verdict, name).toMatchObject({ verdict: 'allow', rule: 'clear' });
      expect(verdict.reason).toMatch(/nothing is typed/);
      const outcome = await executeAction(page, read, action);
      expect(outcome.status, outcome.message).toBe('done');
      expect(await page.locator(id).inputValue()).toBe('');
    }
    const empty = await executeAction(page, read, { type: 'clear', ref: find(read, 'Branch name').ref });
    expect(empty).toMatchObject({ status: 'done' });
    expect(empty.message).toMatch(/empty already/);
  });

  it('is refused for a password box, a checkbox, a drop-down and a button, by the guard and by the executor', async () => {
    const { page, read } = await openForm();
    const guard = guardOf(read);
    for (const name of ['Password', 'Send me updates', 'District', 'Continue']) {
      const action: Action = { type: 'clear', ref: find(read, name).ref };
      expect(guard(action), name).toMatchObject({ verdict: 'block', rule: 'clear' });
    }
    const password = await executeAction(page, read, { type: 'clear', ref: find(read, 'Password').ref });
    expect(password.status).toBe('blocked');
    expect(await page.locator('#pw').inputValue()).toBe('secret');
    const select = await executeAction(page, read, { type: 'clear', ref: find(read, 'District').ref });
    expect(select.status).toBe('error');
    expect(await page.locator('#terms').isChecked()).toBe(true);
  });

  it('in a read-only task the guard blocks it (and every other page action) and the executor touches nothing', async () => {
    const { page, read } = await openForm();
    const guard = guardOf(read, true);
    const ref = find(read, 'Business name').ref;
    for (const action of [{ type: 'clear', ref }, { type: 'fill', ref, field: 'business_name' }, { type: 'click', ref: find(read, 'Continue').ref }, { type: 'goto', url: '/apply' }, { type: 'press', key: 'Enter' }, { type: 'ask', kind: 'confirmation', question: 'ok?', field: null }] as Action[]) {
      expect(guard(action), action.type).toMatchObject({ verdict: 'block', rule: 'read-only' });
    }
    expect(guard({ type: 'fail', reason: 'nothing to read' }).verdict).toBe('allow');
    const outcome = await executeAction(page, read, { type: 'clear', ref }, undefined, { readOnly: true });
    expect(outcome.status).toBe('blocked');
    expect(outcome.message).toMatch(/only reads the portal/);
    expect(await page.locator('#name').inputValue()).toBe('Old Shop Ltd (2019)');
  });
});
