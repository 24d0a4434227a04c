import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeAction } from '../../../src/agent/act/executor';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Control } from '../../../src/shared/observation';
import { formatValue } from '../../../src/shared/value-format';
import { FixtureBrowser, startFixtureServer, type FixtureServer } from '../observe/fixture-server';

/**
 * Widgets driven by code, in real Chromium (test/fixtures/pages/widgets.html): a read-only date box
 * with a calendar, an autocomplete that only takes a choice from its list, a select2-style box for
 * a hidden select, div checkboxes and switches, inputs in an open shadow root, and the read-back
 * after each action (a box that changed or cut the value is reported, not passed over).
 */

let server: FixtureServer;
const browser = new FixtureBrowser();
const observer = new PageObserver();

beforeAll(async () => {
  server = await startFixtureServer();
  await browser.start();
});
afterEach(() => browser.closeContexts());
afterAll(async () => {
  await browser.stop();
  await server.close();
});

async function open(): Promise<{ page: Page; read: LivePageRead }> {
  const page = await browser.page();
  await page.goto(server.url('widgets.html'));
  return { page, read: await observer.read(page) };
}

function find(read: LivePageRead, role: string, name: string): Control {
  const found = read.observation.controls.find((c) => c.role === role && c.name === name);
  if (!found) throw new Error(`no ${role} "${name}" in ${read.observation.controls.map((c) => c.label).join(', ')}`);
  return found;
}

describe('widgets driven by code', () => {
  it('picks a date in the calendar of a read-only box, paging back to the month, and reads the box back', async () => {
    const { page, read } = await open();
    const dob = find(read, 'textbox', 'Date of birth');
    expect(dob.expects).toBe('placeholder "DD/MM/YYYY"');
    const text = formatValue('2021-08-15', 'date:DD/MM/YYYY');
    const outcome = await executeAction(page, read, { type: 'fill', ref: dob.ref, field: 'date_of_birth', format: 'date:DD/MM/YYYY' }, text.ok ? text.text : '');
    expect(outcome.status).toBe('done');
    expect(outcome.message).toMatch(/picked 15 august 2021/i);
    expect(await page.locator('#dob').inputValue()).toBe('15/08/2021');
  });

  it('chooses an autocomplete suggestion equal to the case value; a value not on the list is refused and taken out', async () => {
    const { page, read } = await open();
    const district = find(read, 'combobox', 'District');
    expect((await executeAction(page, read, { type: 'select', ref: district.ref, field: 'district' }, 'Pune')).status).toBe('done');
    expect(await page.locator('#district').inputValue()).toBe('Pune');
    const again = await observer.read(page);
    const refused = await executeAction(page, again, { type: 'select', ref: find(again, 'combobox', 'District').ref, field: 'district' }, 'Panvel');
    expect(refused.status).toBe('error');
    expect(refused.message).toMatch(/does not offer "Panvel".*taken out/);
    expect(await page.locator('#district').inputValue()).toBe('');
  });

  it('chooses in a select2-style box; the hidden select it stands for holds the choice; an unknown ward is refused', async () => {
    const { page, read } = await open();
    const ward = find(read, 'combobox', 'Ward');
    expect((await executeAction(page, read, { type: 'select', ref: ward.ref, field: 'ward' }, 'Ward 12 - Kothrud')).status).toBe('done');
    expect(await page.locator('#ward').inputValue()).toBe('w12');
    const again = await observer.read(page);
    const refused = await executeAction(page, again, { type: 'select', ref: find(again, 'combobox', 'Ward').ref, field: 'ward' }, 'Ward 99');
    expect(refused).toMatchObject({ status: 'error', message: expect.stringMatching(/no option "Ward 99"/) });
    expect(await page.locator('#ward').inputValue()).toBe('w12');
  });

  it('ticks a div checkbox and a switch, and reads them back', async () => {
    const { page, read } = await open();
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'checkbox', 'Home delivery').ref, checked: true })).status).toBe('done');
    expect((await executeAction(page, read, { type: 'check', ref: find(read, 'switch', 'SMS alerts').ref, checked: true })).status).toBe('done');
    expect(await page.locator('#delivery').getAttribute('aria-checked')).toBe('true');
    expect(await page.locator('#sms').getAttribute('aria-checked')).toBe('true');
  });

  it('fills inputs inside an open shadow root', async () => {
    const { page, read } = await open();
    const line = find(read, 'textbox', 'Address line 1');
    expect(line.group).toBe('Shop address');
    expect((await executeAction(page, read, { type: 'fill', ref: line.ref, field: 'address_line_1' }, '14 MG Road')).status).toBe('done');
    expect(await page.locator('address-block').evaluate((el) => (el.shadowRoot!.querySelector('#a1') as HTMLInputElement).value)).toBe('14 MG Road');
  });

  it('reports a box that cut the value short instead of moving on', async () => {
    const { page, read } = await open();
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Old PIN code').ref, field: 'pin' }, '411038');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toMatch(/shows "4110" after typing "411038"/);
  });
});
