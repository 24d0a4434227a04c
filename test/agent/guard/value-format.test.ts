import { describe, expect, it } from 'vitest';
import { checkAction, resolveValue } from '../../../src/agent/guard/guard';
import { formatValue, VALUE_FORMATS, type ValueFormat } from '../../../src/shared/value-format';
import { Action } from '../../../src/shared/action';
import { context, control, makeCase } from './fixtures';

describe('values in the portal’s format, written by code from the case value', () => {
  it.each<[string, ValueFormat, string]>([
    ['2024-03-05', 'date:DD/MM/YYYY', '05/03/2024'],
    ['2024-03-05', 'date:MM/DD/YYYY', '03/05/2024'],
    ['2024-03-05', 'date:D MMMM YYYY', '5 March 2024'],
    ['2024-03-05', 'date:YYYY-MM-DD', '2024-03-05'],
    ['2024-03-05', 'date:day', '05'],
    ['2024-03-05', 'date:month', '03'],
    ['2024-03-05', 'date:year', '2024'],
    ['ABCDE-1234-F', 'digits', '1234'],
    ['+91 98450 12345', 'phone:national', '9845012345'],
    ['0044 20 7946 0958', 'phone:national', '2079460958'],
    ['+1 (415) 555-0100', 'phone:national', '4155550100'],
    ['+353 1 234 5678', 'phone:national', '12345678'],
    ['98450 12345', 'phone:national', '9845012345'],
    ['+91 98450 12345', 'phone:trunk', '09845012345'],
    ['098450 12345', 'phone:trunk', '09845012345'],
    ['98450 12345', 'phone:trunk', '09845012345'],
    ['+91 98450 12345', 'phone:international', '+919845012345'],
    ['0044 20 7946 0958', 'phone:international', '+442079460958'],
    ['+91 9845012345', 'phone:spaced', '98450 12345'],
    ['sw1a 1aa', 'postcode:compact', 'SW1A1AA'],
    ['SW1A1AA', 'postcode:spaced', 'SW1A 1AA'],
    ['560 001', 'postcode:compact', '560001'],
    ['1250000', 'amount:grouped', '1,250,000'],
    ['₹1,25,000.50', 'amount:plain', '125000.50'],
    ['125 000', 'amount:grouped', '125,000'],
  ])('%s as %s is %s', (value, format, text) => {
    expect(formatValue(value, format)).toEqual({ ok: true, text });
  });

  it.each<[string, ValueFormat, RegExp]>([
    ['05/03/2024', 'date:DD/MM/YYYY', /not a date written YYYY-MM-DD/],
    ['2023-02-29', 'date:day', /not a day of the calendar/],
    ['no digits here', 'digits', /has no digits/],
    ['call me maybe', 'phone:national', /not a phone number/],
    ['about twelve', 'amount:grouped', /not an amount/],
    ['98450 12345', 'phone:international', /has no country code/],
    ['Near the temple', 'postcode:compact', /not a postcode/],
  ])('refuses %s as %s', (value, format, reason) => {
    const result = formatValue(value, format);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('is a closed list in the action schema: a format not on it is malformed, free text stays impossible', () => {
    expect(VALUE_FORMATS).toHaveLength(16);
    expect(Action.safeParse({ type: 'fill', ref: 'r1c1', field: 'dob', format: 'date:DD/MM/YYYY' }).success).toBe(true);
    expect(Action.safeParse({ type: 'fill', ref: 'r1c1', field: 'dob', format: 'DD.MM.YY' }).success).toBe(false);
    expect(Action.safeParse({ type: 'fill', ref: 'r1c1', field: 'dob', text: '05/03/2024' }).success).toBe(false);
  });

  it('the guard records field and format; resolveValue types the derived text; an impossible format is blocked', () => {
    const dob = control({ role: 'textbox', name: 'Date of birth (DD/MM/YYYY)', inputType: 'text' });
    const ctx = { ...context({ controls: [dob] }), caseFile: makeCase({ fields: { dob: '1988-11-23', business_name: 'Lakshmi Stores' } }) };
    const fill = { type: 'fill', ref: dob.ref, field: 'dob', format: 'date:DD/MM/YYYY' } as const;
    expect(checkAction(fill, ctx)).toMatchObject({ verdict: 'allow', rule: 'provenance', provenance: { source: 'case', field: 'dob', format: 'date:DD/MM/YYYY' } });
    expect(resolveValue(fill, ctx)).toBe('23/11/1988');
    expect(resolveValue({ ...fill, format: 'date:year' }, ctx)).toBe('1988');
    const wrong = { type: 'fill', ref: dob.ref, field: 'business_name', format: 'date:DD/MM/YYYY' } as const;
    expect(checkAction(wrong, ctx)).toMatchObject({ verdict: 'block', rule: 'provenance', reason: expect.stringMatching(/not a date written YYYY-MM-DD/) });
    expect(() => resolveValue(wrong, ctx)).toThrow(/nothing was typed/);
  });
});
