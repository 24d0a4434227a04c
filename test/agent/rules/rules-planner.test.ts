import { describe, expect, it } from 'vitest';
import { RulesPlanner } from '../../../src/agent/decide/rules/rules-planner';
import { normaliseLabel } from '../../../src/agent/decide/rules/field-names';
import type { Action } from '../../../src/shared/action';
import type { Control, Observation } from '../../../src/shared/observation';
import type { StepAction } from '../../../src/shared/run';
import { PortalProfile } from '../../../src/shared/portal-profile';

const profile = PortalProfile.parse({
  id: 'shops',
  name: 'Shops',
  startUrl: 'http://shops.portal.example/',
  allowedHosts: ['shops.portal.example'],
  allowHttp: true,
  confirmation: { applicationNumberPattern: 'SHP-\\d{4}-\\d{6}', pageContains: 'application submitted' },
});

let n = 0;
function control(partial: Partial<Control> & Pick<Control, 'role' | 'name'>): Control {
  n += 1;
  return { ref: `r1c${n}`, nameSource: 'accessible', disabled: false, required: false, invalid: false, gated: false, label: `${partial.role} "${partial.name}"`, ...partial };
}
function page(controls: Control[], extra: Partial<Observation> = {}): Observation {
  return { readId: 'r1', url: 'http://shops.portal.example:1/form', title: 'Renew', flowStep: 'Step 1 of 3', headings: ['Business details'], text: '', textTruncated: false, errors: [], controls, omittedControls: 0, unnamedControls: 0, frameHosts: [], hasPasswordField: false, readMs: 1, ...extra };
}
async function plan(observation: Observation) {
  const planner = new RulesPlanner(profile);
  planner.start({
    caseId: 'C-1', portal: 'shops', task: 'renewal',
    fields: { business_name: 'Lakshmi Stores', business_type: 'Proprietorship', district: 'Pune', same_as_business: true, employees: '4' },
    aliases: { business_name: ['Name of the establishment'] },
    declarations: ['I declare that the information'],
  });
  const result = await planner.decide({ step: 0, observation, previous: [], notes: [], screenshot: async () => new Uint8Array() });
  expect(result.call).toBeNull();
  return result.turn.actions;
}

describe('rules planner', () => {
  it('normalises labels the way a clerk reads them', () => {
    expect(normaliseLabel('Business name *')).toBe('business name');
    expect(normaliseLabel('business_name')).toBe('business name');
    expect(normaliseLabel('Employees (optional)')).toBe('employees');
  });

  it('fills matching controls by field name, ticks listed declarations, then continues', async () => {
    const name = control({ role: 'textbox', name: 'Name of the establishment *' });
    const type = control({ role: 'radio', name: 'Proprietorship', group: 'Business type', checked: false });
    const otherType = control({ role: 'radio', name: 'Partnership', group: 'Business type', checked: false });
    const district = control({ role: 'combobox', name: 'District', options: ['Pune', 'Nashik'], selected: 'Select' });
    const same = control({ role: 'checkbox', name: 'Same as business address', checked: false });
    const decl = control({ role: 'checkbox', name: 'I declare that the information given is true', checked: false });
    const marketing = control({ role: 'checkbox', name: 'Send me offers', checked: false });
    const reset = control({ role: 'button', name: 'Reset form' });
    const next = control({ role: 'button', name: 'Save and continue' });
    const actions = await plan(page([name, type, otherType, district, same, decl, marketing, reset, next]));
    expect(actions).toEqual([
      { type: 'fill', ref: name.ref, field: 'business_name' },
      { type: 'check', ref: type.ref, checked: true },
      { type: 'select', ref: district.ref, field: 'district' },
      { type: 'check', ref: decl.ref, checked: true },
      { type: 'click', ref: next.ref },
    ]);
  });

  it('leaves controls that already hold the case value alone', async () => {
    const name = control({ role: 'textbox', name: 'Business name', value: 'Lakshmi Stores' });
    const next = control({ role: 'button', name: 'Continue' });
    expect(await plan(page([name, next]))).toEqual([{ type: 'click', ref: next.ref }]);
  });

  it('never presses Reset, Cancel or Delete even when nothing else moves on', async () => {
    const actions = await plan(page([control({ role: 'button', name: 'Reset form' }), control({ role: 'button', name: 'Delete draft' })]));
    expect(actions).toHaveLength(1);
    expect(actions[0]!.type).toBe('fail');
  });

  it('proposes the submit on the final-review page and done with the number on the confirmation page', async () => {
    const submit = control({ role: 'button', name: 'Submit application' });
    const review = page([control({ role: 'link', name: 'Change business name' }), submit], { headings: ['Check your answers'] });
    expect(await plan(review)).toEqual([{ type: 'click', ref: submit.ref }]);
    const confirmation = page([], { headings: ['Application submitted'], text: 'Your application number is SHP-2026-000123.' });
    expect(await plan(confirmation)).toEqual([{ type: 'done', proof: 'Application number SHP-2026-000123 on the confirmation page' }]);
  });

  it('gives up instead of looping when the same page keeps coming back', async () => {
    const planner = new RulesPlanner(profile);
    planner.start({ caseId: 'C', portal: 'shops', task: 't', fields: { business_name: 'x' }, aliases: {}, declarations: [] });
    const stuck = page([control({ role: 'button', name: 'Continue' })], { errors: [{ message: 'Enter the trade licence number' }] });
    const turns = [];
    for (let i = 0; i < 4; i++) turns.push((await planner.decide({ step: i, observation: stuck, previous: [], notes: [], screenshot: async () => new Uint8Array() })).turn);
    expect(turns[3]!.actions[0]).toMatchObject({ type: 'fail', reason: expect.stringContaining('Enter the trade licence number') });
  });
});

describe('rules planner: documents, formats and one-page forms', () => {
  async function planWith(observation: Observation, fields: Record<string, string | boolean>, documents: string[] = []) {
    const planner = new RulesPlanner(profile);
    planner.start({ caseId: 'C-2', portal: 'shops', task: 'renewal', fields, aliases: { id_proof: ['Proof of identity'] }, declarations: [], documents });
    return (await planner.decide({ step: 0, observation, previous: [], notes: [], screenshot: async () => new Uint8Array() })).turn.actions;
  }

  it('attaches a listed document to the file input its label (or an alias) names, and none other', async () => {
    const idBox = control({ role: 'button', name: 'Proof of identity', inputType: 'file' });
    const other = control({ role: 'button', name: 'Photograph', inputType: 'file' });
    const next = control({ role: 'button', name: 'Continue' });
    const actions = await planWith(page([idBox, other, next]), { business_name: 'X' }, ['id_proof']);
    expect(actions).toEqual([{ type: 'upload', ref: idBox.ref, document: 'id_proof' }, { type: 'click', ref: next.ref }]);
  });

  it('names a format only where the page says one, and never one the value cannot take', async () => {
    const dob = control({ role: 'textbox', name: 'Date of birth', expects: 'placeholder "dd/mm/yyyy"' });
    const iso = control({ role: 'textbox', name: 'Start date', inputType: 'date' });
    const phone = control({ role: 'textbox', name: 'Mobile number', expects: 'placeholder "10 digit mobile, without country code"' });
    const name = control({ role: 'textbox', name: 'Business name', expects: 'placeholder "DD/MM/YYYY"' });
    const actions = await planWith(page([dob, iso, phone, name]), { date_of_birth: '1990-01-31', start_date: '2024-04-01', mobile_number: '+91 98450 12345', business_name: 'Anand Bakery' });
    expect(actions).toEqual([
      { type: 'fill', ref: dob.ref, field: 'date_of_birth', format: 'date:DD/MM/YYYY' },
      { type: 'fill', ref: iso.ref, field: 'start_date' },
      { type: 'fill', ref: phone.ref, field: 'mobile_number', format: 'phone:national' },
      { type: 'fill', ref: name.ref, field: 'business_name' },
    ]);
  });

  it('types a masked box its digits when they fill the mask exactly (the mask writes its own separators), and never a date', async () => {
    const phone = control({ role: 'textbox', name: 'Phone number', expects: 'placeholder "___-___-____"; hint "10 digits, for example 555-123-4567"; maxlength 12' });
    const intl = control({ role: 'textbox', name: 'Mobile', expects: 'placeholder "(###) ###-####"' });
    const short = control({ role: 'textbox', name: 'Extension', expects: 'placeholder "___-___-____"' });
    const licence = control({ role: 'textbox', name: 'Licence', expects: 'placeholder "____-____"' });
    const born = control({ role: 'textbox', name: 'Date of birth', expects: 'placeholder "__/__/____"' });
    const actions = await planWith(page([phone, intl, short, born, licence]), { phone_number: '(512) 555-0148', mobile: '+1 503 555 0111', extension: '44-12', date_of_birth: '1986-04-23', licence: 'LN12-3456' });
    expect(actions).toEqual([
      { type: 'fill', ref: phone.ref, field: 'phone_number', format: 'digits' },
      { type: 'fill', ref: intl.ref, field: 'mobile', format: 'phone:national' },
      { type: 'fill', ref: short.ref, field: 'extension' },
      { type: 'fill', ref: born.ref, field: 'date_of_birth' },
      // Its letters are part of the value: never typed as digits alone.
      { type: 'fill', ref: licence.ref, field: 'licence' },
    ]);
  });

  it('takes a box that would not hold what was typed (the read-back differed) as a refusal: the next plausible format next turn, then the clerk', async () => {
    const planner = new RulesPlanner(profile);
    planner.start({ caseId: 'C-3', portal: 'shops', task: 'renewal', fields: { phone_number: '+44 7700 900982' }, aliases: {}, declarations: [] });
    const decide = async (observation: Observation, previous: StepAction[]) => (await planner.decide({ step: 0, observation, previous, notes: [], screenshot: async () => new Uint8Array() })).turn.actions;
    const box = (value?: string) => control({ role: 'textbox', name: 'Phone number', ...(value === undefined ? {} : { value }) });
    const refusedBy = (action: Action, shown: string): StepAction[] => [
      { action, verdict: { verdict: 'allow', rule: 'provenance', reason: 'case value' }, outcome: { status: 'error', message: `textbox "Phone number" shows "${shown}" after typing (the box changed or cut the value)`, ms: 5 } },
    ];
    const first = box();
    const [typed] = await decide(page([first]), []);
    expect(typed).toEqual({ type: 'fill', ref: first.ref, field: 'phone_number' });
    // Not every error is a refusal of the format: a fill that timed out is typed the same way again.
    const timedOut: StepAction[] = [{ action: typed!, verdict: { verdict: 'allow', rule: 'provenance', reason: 'case value' }, outcome: { status: 'error', message: 'fill timed out after 10000 ms', ms: 10_000 } }];
    const same = box('');
    const retyped = await decide(page([same]), timedOut);
    expect(retyped).toEqual([{ type: 'fill', ref: same.ref, field: 'phone_number' }]);
    const second = box('+44 7700 90');
    const next = await decide(page([second]), refusedBy(retyped[0]!, '+44 7700 90'));
    expect(next).toEqual([{ type: 'fill', ref: second.ref, field: 'phone_number', format: 'phone:national' }]);
    // Every plausible format refused in turn: then the clerk is asked, with the box's own words.
    let last = next[0]!;
    const asked: Action[] = [];
    for (let turn = 0; turn < 8 && asked.length === 0; turn++) {
      const again = box('cut');
      const actions = await decide(page([again]), refusedBy(last, 'cut'));
      const ask = actions.find((a) => a.type === 'ask' || a.type === 'fail');
      if (ask) asked.push(ask);
      else last = actions[0]!;
    }
    expect(asked[0]).toMatchObject({ type: 'ask' });
    expect(JSON.stringify(asked[0])).toMatch(/changed or cut the value/);
  });

  it('proposes no submit while nothing is filled yet, and the submit button once everything is', async () => {
    const name = control({ role: 'textbox', name: 'Business name' });
    const submit = control({ role: 'button', name: 'Submit' });
    const reset = control({ role: 'button', name: 'Reset form' });
    expect(await planWith(page([name, reset, submit]), { business_name: 'Anand Bakery' })).toEqual([{ type: 'fill', ref: name.ref, field: 'business_name' }]);
    const filled = { ...name, value: 'Anand Bakery' };
    expect(await planWith(page([filled, reset, submit]), { business_name: 'Anand Bakery' })).toEqual([{ type: 'click', ref: submit.ref }]);
  });
  it('on a check-answers page presses the last button by its other wordings ("Accept and send"), never "Change"', async () => {
    const review = page([control({ role: 'link', name: 'Change full name' }), control({ role: 'button', name: 'Accept and send' })], { headings: ['Check your answers before sending your application'] });
    const actions = await plan(review);
    expect(actions).toEqual([{ type: 'click', ref: review.controls[1]!.ref }]);
  });

  it('reads the order of a date from an example in the hint (17/5/2024 is day first, 5/17/2024 month first)', async () => {
    const planner = new RulesPlanner(profile);
    planner.start({ caseId: 'C-2', portal: 'shops', task: 'claim', fields: { date_of_the_incident: '2025-03-14' }, aliases: {}, declarations: [] });
    const dayFirst = page([control({ role: 'textbox', name: 'Date of the incident', value: '', expects: 'hint "For example, 17/5/2024."' })]);
    const monthFirst = page([control({ role: 'textbox', name: 'Date of the incident', value: '', expects: 'hint "For example, 5/17/2024"' })]);
    const first = await planner.decide({ step: 0, observation: dayFirst, previous: [], notes: [], screenshot: async () => new Uint8Array() });
    expect(first.turn.actions[0]).toMatchObject({ type: 'fill', field: 'date_of_the_incident', format: 'date:DD/MM/YYYY' });
    const other = new RulesPlanner(profile);
    other.start({ caseId: 'C-3', portal: 'shops', task: 'claim', fields: { date_of_the_incident: '2025-03-14' }, aliases: {}, declarations: [] });
    const second = await other.decide({ step: 0, observation: monthFirst, previous: [], notes: [], screenshot: async () => new Uint8Array() });
    expect(second.turn.actions[0]).toMatchObject({ type: 'fill', field: 'date_of_the_incident', format: 'date:MM/DD/YYYY' });
  });

  it('does not choose again in a typed combo box that already shows the case value', async () => {
    const actions = await plan(page([control({ role: 'combobox', name: 'District', value: 'Pune' })]));
    expect(actions.filter((a) => a.type === 'select')).toEqual([]);
  });
});
