import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { executeAction } from '../../../src/agent/act/executor';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Control } from '../../../src/shared/observation';
import { formatValue } from '../../../src/shared/value-format';
import { useFixturePages } from '../observe/fixture-pages';

/**
 * Widgets driven by code, in real Chromium (test/fixtures/pages/widgets.html): a read-only date box
 * with a calendar, an autocomplete that only takes a choice from its list, a select2-style box for
 * a hidden select, div checkboxes and switches, inputs in an open shadow root, and the read-back
 * after each action (a box that changed or cut the value is reported, not passed over), and
 * widgets that silently drop what they were given (test/fixtures/pages/widgets-drop.html): each is
 * reported as a mismatch, read back right after acting or once the page has settled.
 */

const { server, browser } = useFixturePages();
const observer = new PageObserver();

async function open(file = 'widgets.html'): Promise<{ page: Page; read: LivePageRead }> {
  const page = await browser.page();
  await page.goto(server.url(file));
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

describe('an input mask that writes as keys are pressed (as USWDS\'s does)', () => {
  it('a value set whole that the mask would cut or its pattern refuses is typed key by key, and the mask writes it its way', async () => {
    for (const [value, shown] of [
      ['(512) 555-0148', '512-555-0148'],
      ['4045550123', '404-555-0123'],
    ] as const) {
      const { page, read } = await open('masked-input.html');
      const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Phone number').ref, field: 'phone_number' }, value);
      expect(outcome.status, `${value}: ${outcome.message ?? ''}`).toBe('done');
      expect(await page.locator('#phone').inputValue()).toBe(shown);
      expect(await page.locator('#phone').evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(true);
    }
  });

  it('a box that completes what is typed key by key to a longer value keeps the value itself, never the completion', async () => {
    const { page, read } = await open('masked-input.html');
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Town').ref, field: 'town' }, 'London');
    expect(outcome.status).toBe('done');
    expect(await page.locator('#town').inputValue()).toBe('London');
  });

  it('typed key by key, every key lands in the box itself, even where the page sends the focus on to another box', async () => {
    const { page, read } = await open('masked-input.html');
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'PIN code').ref, field: 'pin' }, '560 001');
    expect(outcome.status).toBe('done');
    expect(await page.locator('#pin').inputValue()).toBe('560 001');
    expect(await page.locator('#notes').inputValue()).toBe('');
  });

  it('a value the mask cannot take either (its letters dropped) is set as it is, for the portal to judge', async () => {
    const { page, read } = await open('masked-input.html');
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Phone number').ref, field: 'phone_number' }, 'by post');
    expect(outcome.status).toBe('done');
    expect(await page.locator('#phone').inputValue()).toBe('by post');
  });
});

describe('read back after acting: widgets that silently drop the value are reported, not moved past', () => {
  it('a box that empties itself when it is left', async () => {
    const { page, read } = await open('widgets-drop.html');
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Licence number').ref, field: 'licence' }, 'TL-2041');
    expect(outcome).toMatchObject({ status: 'error', message: expect.stringMatching(/Licence number.* shows "" once the box was left, after typing "TL-2041"/) });
    expect(await page.locator('#licence').inputValue()).toBe('');
  });

  it('a box that empties itself once the server has answered (seen once the page settled)', async () => {
    const { page, read } = await open('widgets-drop.html');
    const outcome = await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Reference code').ref, field: 'reference' }, 'REF-77');
    expect(outcome).toMatchObject({ status: 'error', message: expect.stringMatching(/Reference code.* shows "" once the page settled, after typing "REF-77"/) });
    expect(await page.locator('#reference').inputValue()).toBe('');
  });

  it('a native select that goes back to its first option', async () => {
    const { page, read } = await open('widgets-drop.html');
    const outcome = await executeAction(page, read, { type: 'select', ref: find(read, 'combobox', 'Category').ref, field: 'category' }, 'Retail');
    expect(outcome).toMatchObject({ status: 'error', message: expect.stringMatching(/Category.* shows "Choose" after choosing "Retail".*changed the choice back/) });
    expect(await page.locator('#category').inputValue()).toBe('Choose');
  });

  it('a drawn checkbox that flips back', async () => {
    const { page, read } = await open('widgets-drop.html');
    const outcome = await executeAction(page, read, { type: 'check', ref: find(read, 'checkbox', 'Paperless billing').ref, checked: true });
    expect(outcome).toMatchObject({ status: 'error', message: expect.stringMatching(/Paperless billing.* is not ticked once the page settled, after it was ticked/) });
    expect(await page.locator('#paperless').getAttribute('aria-checked')).toBe('false');
  });

  it('a select2-style box that shows the choice but never sets the select the form sends', async () => {
    const { page, read } = await open('widgets-drop.html');
    const outcome = await executeAction(page, read, { type: 'select', ref: find(read, 'combobox', 'Zone').ref, field: 'zone' }, 'Zone 1');
    expect(outcome).toMatchObject({ status: 'error', message: expect.stringMatching(/Zone.* after choosing "Zone 1" \(its box shows the choice, but the list it stands for does not hold it\)/) });
    expect(await page.locator('#zone-box').textContent()).toBe('Zone 1');
    expect(await page.locator('#zone').inputValue()).toBe('');
  });

  it('boxes that rewrite the value when left but keep every digit are not a mismatch', async () => {
    const { page, read } = await open('widgets-drop.html');
    expect((await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Mobile number').ref, field: 'mobile' }, '9006285241')).status).toBe('done');
    expect(await page.locator('#mobile').inputValue()).toBe('90062 85241');
    expect((await executeAction(page, read, { type: 'fill', ref: find(read, 'textbox', 'Fee paid').ref, field: 'fee' }, '1500')).status).toBe('done');
    expect(await page.locator('#fee').inputValue()).toBe('1,500.00');
  });
});
