import { describe, expect, it } from 'vitest';
import { provenanceRule, resolveValue } from '../../../../src/agent/guard/rules/provenance';
import { context, control } from '../fixtures';

describe('provenance rule', () => {
  const name = control({ role: 'textbox', name: 'Name of the establishment', inputType: 'text' });
  const district = control({ role: 'combobox', name: 'District', options: ['Pune', 'Nashik'] });
  const password = control({ role: 'textbox', name: 'Password', inputType: 'password' });
  const upload = control({ role: 'button', name: 'Upload licence', inputType: 'file' });
  const box = control({ role: 'checkbox', name: 'Same as business address', inputType: 'checkbox' });
  const ctx = context({ controls: [name, district, password, upload, box], clerkValues: { pan_number: 'ABCDE1234F' } });

  it('allows a case field and says where the value comes from', () => {
    const verdict = provenanceRule.check({ type: 'fill', ref: name.ref, field: 'business_name' }, ctx);
    expect(verdict).toMatchObject({ verdict: 'allow', rule: 'provenance', provenance: { source: 'case', field: 'business_name' } });
    expect(verdict?.reason).not.toContain('Lakshmi Stores');
    expect(provenanceRule.check({ type: 'select', ref: district.ref, field: 'district' }, ctx)).toMatchObject({ provenance: { source: 'case', field: 'district' } });
  });

  it('allows a field the clerk answered, with clerk provenance, and prefers it over the case', () => {
    expect(provenanceRule.check({ type: 'fill', ref: name.ref, field: 'pan_number' }, ctx)).toMatchObject({ verdict: 'allow', provenance: { source: 'clerk', field: 'pan_number' } });
    const both = context({ controls: [name], clerkValues: { business_name: 'Lakshmi General Stores' } });
    expect(provenanceRule.check({ type: 'fill', ref: name.ref, field: 'business_name' }, both)?.provenance).toEqual({ source: 'clerk', field: 'business_name' });
    expect(resolveValue({ type: 'fill', ref: name.ref, field: 'business_name' }, both)).toBe('Lakshmi General Stores');
  });

  it('blocks a field that is not in the case, naming the fields there are', () => {
    const verdict = provenanceRule.check({ type: 'fill', ref: name.ref, field: 'bank_account' }, ctx);
    expect(verdict).toMatchObject({ verdict: 'block', rule: 'provenance' });
    expect(verdict?.reason).toContain('no case field named "bank_account"');
    expect(verdict?.reason).toContain('business_name');
  });

  it('does not take inherited object keys for fields', () => {
    for (const field of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(provenanceRule.check({ type: 'fill', ref: name.ref, field }, ctx), field).toMatchObject({ verdict: 'block' });
      expect(() => resolveValue({ type: 'fill', ref: name.ref, field }, ctx), field).toThrow(/No case field/);
    }
  });

  it('blocks yes/no fields: those are ticked with check', () => {
    expect(provenanceRule.check({ type: 'fill', ref: name.ref, field: 'same_as_business' }, ctx)).toMatchObject({ verdict: 'block', reason: expect.stringContaining('yes/no') });
    expect(provenanceRule.check({ type: 'select', ref: district.ref, field: 'has_branch' }, ctx)).toMatchObject({ verdict: 'block' });
  });

  it('never types into a password box, a file upload or a checkbox', () => {
    expect(provenanceRule.check({ type: 'fill', ref: password.ref, field: 'business_name' }, ctx)).toMatchObject({ verdict: 'block', reason: expect.stringContaining('signing in is done by code') });
    expect(provenanceRule.check({ type: 'fill', ref: upload.ref, field: 'business_name' }, ctx)).toMatchObject({ verdict: 'block', reason: expect.stringContaining('file upload') });
    expect(provenanceRule.check({ type: 'fill', ref: box.ref, field: 'business_name' }, ctx)).toMatchObject({ verdict: 'block', reason: expect.stringContaining('check') });
    const upper = control({ role: 'textbox', name: 'PIN', inputType: 'PASSWORD' });
    expect(provenanceRule.check({ type: 'fill', ref: upper.ref, field: 'business_name' }, context({ controls: [upper] }))).toMatchObject({ verdict: 'block' });
  });

  it('resolves the value from the case, never from the action', () => {
    expect(resolveValue({ type: 'fill', ref: name.ref, field: 'business_name' }, ctx)).toBe('Lakshmi Stores');
    expect(resolveValue({ type: 'select', ref: district.ref, field: 'district' }, ctx)).toBe('Pune');
    expect(() => resolveValue({ type: 'fill', ref: name.ref, field: 'same_as_business' }, ctx)).toThrow(/yes\/no/);
    expect(() => resolveValue({ type: 'fill', ref: name.ref, field: 'nope' }, ctx)).toThrow(/No case field named "nope"/);
  });

  it('has nothing to say about other actions', () => {
    expect(provenanceRule.check({ type: 'click', ref: name.ref }, ctx)).toBeUndefined();
  });
});
