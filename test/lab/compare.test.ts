import { describe, expect, it } from 'vitest';
import { compareSubmission } from '../../lab/index';

describe('compareSubmission', () => {
  const submitted = {
    business_name: 'Meera Handloom Sarees',
    business_city: 'Pune',
    correspondence_same_as_business: false,
    correspondence_city: 'Nashik',
    owner_email: '',
    open_on_sundays: false,
  };

  it('finds nothing when every field matches (blank and left-out fields are equal)', () => {
    expect(compareSubmission({ business_name: 'Meera Handloom Sarees', business_city: 'Pune', correspondence_same_as_business: false, correspondence_city: 'Nashik' }, submitted)).toEqual([]);
  });

  it('reports a wrong value, a made-up value and a missing one', () => {
    const mismatches = compareSubmission(
      { business_name: 'Meera Handloom', business_city: 'Pune', correspondence_city: 'Nashik', open_on_sundays: false, licence_number: 'X1' },
      { ...submitted, owner_email: 'made.up@example.in' },
    );
    expect(mismatches).toEqual([
      { field: 'business_name', expected: 'Meera Handloom', actual: 'Meera Handloom Sarees' },
      { field: 'licence_number', expected: 'X1', actual: null },
      { field: 'owner_email', expected: null, actual: 'made.up@example.in' },
    ]);
  });

  it('treats a checkbox and its text lookalike as different, and ignores surrounding spaces only', () => {
    expect(compareSubmission({ open_on_sundays: true }, { open_on_sundays: 'true' })).toEqual([{ field: 'open_on_sundays', expected: true, actual: 'true' }]);
    expect(compareSubmission({ business_city: ' Pune ' }, { business_city: 'Pune' })).toEqual([]);
    expect(compareSubmission({ business_city: 'Pune' }, { business_city: 'pune' })).toHaveLength(1);
  });

  it('expects copied fields when a "same as" box is ticked', () => {
    const caseFields = { business_city: 'Pune', business_pincode: '411030', correspondence_same_as_business: true };
    expect(compareSubmission(caseFields, { ...caseFields, correspondence_city: 'Pune', correspondence_pincode: '411030' })).toEqual([]);
    expect(compareSubmission(caseFields, { ...caseFields, correspondence_city: '', correspondence_pincode: '411030' })).toEqual([
      { field: 'correspondence_city', expected: 'Pune', actual: '' },
    ]);
    // The copy wins over whatever the case lists for the copied fields.
    expect(compareSubmission({ ...caseFields, correspondence_city: 'Mumbai' }, { ...caseFields, correspondence_city: 'Pune', correspondence_pincode: '411030' })).toEqual([]);
  });

  it('copies only fields whose source exists (billing_unit is no copy of a supply_unit)', () => {
    const caseFields = { billing_same_as_supply: true, billing_unit: '4521', supply_city: 'Jaipur' };
    expect(compareSubmission(caseFields, { ...caseFields, billing_city: 'Jaipur' })).toEqual([]);
    expect(compareSubmission(caseFields, { ...caseFields, billing_unit: '', billing_city: 'Jaipur' })).toEqual([
      { field: 'billing_unit', expected: '4521', actual: '' },
    ]);
  });
});
