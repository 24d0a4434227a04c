import { describe, expect, it } from 'vitest';
import { compareWithCase, sameValue } from '../../src/agent/portal/review-values';

/** The approval card's table: each value a review page says it will submit, beside the case value it came from. */
const caseFile = {
  fields: { business_name: 'Anand Bakery and Café', date_of_commencement: '2022-03-01', open_on_sundays: true, owner_pan: 'AMNPR6621D', number_of_employees: '12' },
  aliases: { business_name: ['Name of establishment'], owner_pan: ['PAN of owner'] },
  declarations: ['I declare that the information given in this application is true and complete'],
};

describe('compareWithCase', () => {
  it('finds the case field by label or alias and marks a value that differs from the case', () => {
    const rows = compareWithCase(
      [
        { label: 'Name of establishment', value: 'Anand Bakery and Cafe Pvt' },
        { label: 'Business started on', value: '1 March 2022' },
        { label: 'Date of commencement', value: '1 March 2022' },
        { label: 'Open on Sundays', value: 'Yes' },
        { label: 'PAN of owner', value: 'amnpr6621d' },
        { label: 'Declaration', value: 'Confirmed' },
        { label: 'Fee', value: '₹ 1,500' },
        { label: 'Total workers', value: '12' },
        { label: 'Business address line 2', value: 'Not provided' },
      ],
      caseFile,
    );
    expect(rows.map((r) => [r.label, r.field ?? null, r.match])).toEqual([
      ['Name of establishment', 'business_name', 'differs'],
      // No field by that label, but the value is the case's date: it says where it came from.
      ['Business started on', 'date_of_commencement', 'same'],
      ['Date of commencement', 'date_of_commencement', 'same'],
      ['Open on Sundays', 'open_on_sundays', 'same'],
      ['PAN of owner', 'owner_pan', 'same'],
      ['Declaration', 'declarations', 'same'],
      ['Fee', null, 'not_in_case'],
      ['Total workers', 'number_of_employees', 'same'],
      // Empty on the page and nothing in the case: nothing is submitted there.
      ['Business address line 2', null, 'same'],
    ]);
    expect(rows[0]).toMatchObject({ caseValue: 'Anand Bakery and Café', pageValue: 'Anand Bakery and Cafe Pvt' });
  });

  it('reads the clerk’s answers as case values too', () => {
    const rows = compareWithCase([{ label: 'Owner mobile', value: '9444056789' }], caseFile, { owner_mobile: '9444056780' });
    expect(rows).toEqual([expect.objectContaining({ field: 'owner_mobile', match: 'differs', caseValue: '9444056780' })]);
  });
});

describe('sameValue', () => {
  it('takes a date in the spellings portals use, and yes/no for a tick', () => {
    expect(sameValue('2022-03-01', '01/03/2022')).toBe(true);
    expect(sameValue('2022-03-01', '2 March 2022')).toBe(false);
    expect(sameValue(false, 'No')).toBe(true);
    expect(sameValue(true, 'No')).toBe(false);
  });
});

describe('compareWithCase per person (issue 30)', () => {
  const caseFile = {
    fields: { business_name: 'Rao & Iyer Traders', 'partners[0].full_name': 'Meena Rao', 'partners[1].full_name': 'Arjun Iyer', 'partners[0].date_of_birth': '1979-02-05', 'partners[1].date_of_birth': '1984-10-21' },
    aliases: {},
    declarations: [],
  };

  it('compares each partner’s rows with that partner’s values, and flags partner 1’s value under partner 2', () => {
    const rows = compareWithCase(
      [
        { label: 'Business name', value: 'Rao & Iyer Traders', section: 'Your business' },
        { label: 'Full name', value: 'Meena Rao', section: 'Partner 1' },
        { label: 'Date of birth', value: '5 February 1979', section: 'Partner 1' },
        { label: 'Full name', value: 'Meena Rao', section: 'Partner 2' },
        { label: 'Date of birth', value: '21 October 1984', section: 'Second partner' },
        { label: 'Full name', value: 'Arjun Iyer', section: 'Partner 3' },
      ],
      caseFile,
    );
    expect(rows.map((r) => [r.field, r.match])).toEqual([
      ['business_name', 'same'],
      ['partners[0].full_name', 'same'],
      ['partners[0].date_of_birth', 'same'],
      ['partners[1].full_name', 'differs'],
      ['partners[1].date_of_birth', 'same'],
      // A third partner the case does not have: not matched to partner 2 by value.
      [undefined, 'not_in_case'],
    ]);
    expect(rows[3]).toMatchObject({ caseValue: 'Arjun Iyer', pageValue: 'Meena Rao' });
  });
});
