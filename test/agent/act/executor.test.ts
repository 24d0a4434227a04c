import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { executeAction, runBatch } from '../../../src/agent/act/executor';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Control } from '../../../src/shared/observation';
import { useFixturePages } from '../observe/fixture-pages';

const { server, browser } = useFixturePages();
const observer = new PageObserver();

function find(read: LivePageRead, role: string, name: string): Control {
  const found = read.observation.controls.find((c) => c.role === role && c.name === name);
  if (!found) throw new Error(`no ${role} "${name}"`);
  return found;
}

async function openActions(): Promise<{ page: Page; read: LivePageRead }> {
  const page = await browser.page();
  await page.goto(server.url('actions.html'));
  return { page, read: await observer.read(page) };
}

describe('fill', () => {
  it('types the value the caller gives', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Full name').ref, field: 'fullName' }, 'Asha Rao');
    expect(outcome.status).toBe('done');
    expect(await page.locator('#name').inputValue()).toBe('Asha Rao');
  });

  it('refuses a read-only field quickly, and a missing value', async () => {
    const { page, read } = await openActions();
    const readonly = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Reference').ref, field: 'x' }, 'changed');
    expect(readonly.status).toBe('error');
    expect(readonly.message).toMatch(/read-only/);
    expect(readonly.ms).toBeLessThan(2_000);
    const missing = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Full name').ref, field: 'x' });
    expect(missing.status).toBe('error');
    expect(await page.locator('#ro').inputValue()).toBe('FIXED');
  });
});

describe('select', () => {
  it('chooses the option whose label equals the value, ignoring case and spacing', async () => {
    const { page, read } = await openActions();
    const state = find(read, 'combobox', 'State');
    expect((await executeAction(page, read, { type: 'select', ref: state.ref, field: 'state' }, 'karnataka')).status).toBe('done');
    expect(await page.locator('#state').inputValue()).toBe('KA');
    expect((await executeAction(page, read, { type: 'select', ref: state.ref, field: 'state' }, 'Tamil Nadu')).status).toBe('done');
    expect(await page.locator('#state').inputValue()).toBe('TN');
  });

  it('says which options exist when the value is not one, and refuses a disabled option', async () => {
    const { page, read } = await openActions();
    const state = find(read, 'combobox', 'State');
    const missing = await executeAction(page, read, { type: 'select', ref: state.ref, field: 'state' }, 'Goa');
    expect(missing.status).toBe('error');
    expect(missing.message).toContain('no option "Goa"');
    expect(missing.message).toContain('Karnataka');
    const disabled = await executeAction(page, read, { type: 'select', ref: state.ref, field: 'state' }, 'Kerala');
    expect(disabled.status).toBe('error');
    expect(disabled.message).toMatch(/disabled/);
    expect(await page.locator('#state').inputValue()).toBe('');
  });

  it('picks the radio labelled with the value when given a radio of the group', async () => {
    const { page, read } = await openActions();
    const phone = find(read, 'radio', 'Phone');
    const outcome = await executeAction(page, read, { type: 'select', ref: phone.ref, field: 'contact' }, 'email');
    expect(outcome.status).toBe('done');
    expect(await page.locator('input[value=email]').isChecked()).toBe(true);
    expect(await page.locator('input[value=phone]').isChecked()).toBe(false);
    const wrong = await executeAction(page, read, { type: 'select', ref: phone.ref, field: 'contact' }, 'Fax');
    expect(wrong.status).toBe('error');
    expect(wrong.message).toContain('Phone, Email, Post');
  });
});

describe('check', () => {
  it('sets a checkbox either way and ticks a radio', async () => {
    const { page, read } = await openActions();
    const terms = find(read, 'checkbox', 'I accept the terms');
    expect((await executeAction(page, read, { type: 'check', ref: terms.ref, checked: true })).status).toBe('done');
    expect(await page.locator('#terms').isChecked()).toBe(true);
    expect((await executeAction(page, read, { type: 'check', ref: terms.ref, checked: false })).status).toBe('done');
    expect(await page.locator('#terms').isChecked()).toBe(false);

    const post = find(read, 'radio', 'Post');
    expect((await executeAction(page, read, { type: 'check', ref: post.ref, checked: true })).status).toBe('done');
    expect(await page.locator('input[value=post]').isChecked()).toBe(true);
    const untick = await executeAction(page, read, { type: 'check', ref: post.ref, checked: false });
    expect(untick.status).toBe('error');
    expect(await page.locator('input[value=post]').isChecked()).toBe(true);
  });

  it('ticks a box drawn on its label (the input moved off screen, as USWDS draws it) by clicking the label, and reads it back', async () => {
    const page = await browser.page();
    await page.setContent(`<style>.sr{position:absolute;left:-999em}</style><form>
      <input class="sr" type="checkbox" id="certify" name="certify"><label for="certify">I certify that this is true</label>
      <fieldset><legend>Contact method</legend><input class="sr" type="radio" id="c-mail" name="contact" value="mail"><label for="c-mail">Mail</label>
      <input class="sr" type="radio" id="c-phone" name="contact" value="phone"><label for="c-phone">Phone</label></fieldset>
      <label>Aware <input class="sr" type="checkbox" id="aware"></label>
      <label for="proof">Proof of identity</label><input type="file" id="proof" aria-label="Drag file here or choose from folder"></form>`);
    const read = await observer.read(page);
    // The file input is named by its own <label>, not the aria-label that replaced it.
    expect(read.observation.controls.some((c) => c.name === 'Proof of identity')).toBe(true);
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'checkbox', 'I certify that this is true').ref, checked: true })).status).toBe('done');
    expect(await page.locator('#certify').isChecked()).toBe(true);
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'radio', 'Phone').ref, checked: true })).status).toBe('done');
    expect(await page.locator('#c-phone').isChecked()).toBe(true);
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'checkbox', 'Aware').ref, checked: true })).status).toBe('done');
    expect(await page.locator('#aware').isChecked()).toBe(true);
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'checkbox', 'I certify that this is true').ref, checked: false })).status).toBe('done');
    expect(await page.locator('#certify').isChecked()).toBe(false);
  });
});

describe('click', () => {
  it('follows a link and waits for the new page to load', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'click', ref: find(read, 'link', 'Go to the next page').ref });
    expect(outcome.status).toBe('done');
    expect(page.url()).toBe(server.url('next.html'));
    expect(await page.locator('h1').textContent()).toBe('Next page');
  });

  it('waits for the DOM to settle after a click that loads content later', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'click', ref: find(read, 'button', 'Load more').ref });
    expect(outcome.status).toBe('done');
    expect(await page.locator('#later').count()).toBe(1);
  });

  it('reaches a button below the fold under a cross-site frame (a click Chromium would otherwise drop)', async () => {
    // Chromium routes a click by hit-test data drawn after the page scrolls; a click sent in the
    // same breath as the scroll went to the frame's process and the form never submitted.
    const page = await browser.page();
    await page.goto(server.url('frame-above-button.html'));
    await page.frameLocator('iframe[title="Widget"]').getByRole('heading', { name: 'Card details' }).waitFor();
    const read = await observer.read(page);
    const outcome = await executeAction(page, read, { type: 'click', ref: find(read, 'button', 'Continue').ref });
    expect(outcome.status).toBe('done');
    expect(await page.title()).toBe('Submitted');
  });

  it('refuses a disabled button without waiting for a timeout', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'click', ref: find(read, 'button', 'Not yet').ref });
    expect(outcome.status).toBe('error');
    expect(outcome.message).toMatch(/disabled/);
    expect(outcome.ms).toBeLessThan(2_000);
  });
});

describe('press and goto', () => {
  it('presses a key on the focused element; Enter submits the form', async () => {
    const { page, read } = await openActions();
    await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Full name').ref, field: 'fullName' }, 'Asha');
    expect((await executeAction(page, read, { type: 'press', key: 'ArrowDown' })).status).toBe('done');
    expect(await page.locator('#keys').textContent()).toBe('[ArrowDown]');
    expect((await executeAction(page, read, { type: 'press', key: 'Space' })).status).toBe('done');
    expect(await page.locator('#keys').textContent()).toBe('[ArrowDown][ ]');
    const enter = await executeAction(page, read, { type: 'press', key: 'Enter' });
    expect(enter.status).toBe('done');
    expect(page.url()).toContain('/submitted.html?name=Asha');
    expect(await page.locator('h1').textContent()).toBe('Application received');
  });

  it('goes to a URL and reports an HTTP error status', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'goto', url: server.url('next.html') });
    expect(outcome.status).toBe('done');
    expect(page.url()).toBe(server.url('next.html'));
    const missing = await executeAction(page, read, { type: 'goto', url: server.url('nowhere.html') });
    expect(missing.status).toBe('done');
    expect(missing.message).toContain('HTTP 404');
  });

  it('reads a path against the page it is on (page blocks write same-origin links as paths)', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'goto', url: '/next.html?from=path' });
    expect(outcome.status).toBe('done');
    expect(page.url()).toBe(`${server.url('next.html')}?from=path`);
  });

  it('leaves ask, done and fail to the run loop', async () => {
    const { page, read } = await openActions();
    const outcome = await executeAction(page, read, { type: 'done', proof: 'x' });
    expect(outcome.status).toBe('error');
  });
});

describe('runBatch', () => {
  it('runs in order and stops at the first outcome that is not done', async () => {
    const { page, read } = await openActions();
    const name = find(read, 'textbox', 'Full name');
    const terms = find(read, 'checkbox', 'I accept the terms');
    const outcomes = await runBatch(page, read, [
      { action: { type: 'fill', ref: name.ref, field: 'fullName' }, value: 'Asha Rao' },
      { action: { type: 'click', ref: 'r0c1' } },
      { action: { type: 'check', ref: terms.ref, checked: true } },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['done', 'unknown_ref', 'skipped']);
    expect(await page.locator('#name').inputValue()).toBe('Asha Rao');
    expect(await page.locator('#terms').isChecked()).toBe(false);
  });

  it('answers unknown_ref for later actions once an earlier one left the page', async () => {
    const { page, read } = await openActions();
    const outcomes = await runBatch(page, read, [
      { action: { type: 'click', ref: find(read, 'link', 'Go to the next page').ref } },
      { action: { type: 'fill', ref: find(read, 'textbox', 'Full name').ref, field: 'fullName' }, value: 'late' },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['done', 'unknown_ref']);
  });
});
