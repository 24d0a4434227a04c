import { describe, expect, it } from 'vitest';
import { checkAction } from '../../../../src/agent/guard/guard';
import { rightPersonRule } from '../../../../src/agent/guard/rules/right-person';
import { context, control, makeCase } from '../fixtures';

describe('right-person rule', () => {
  const caseFile = makeCase({
    fields: {
      full_name: 'Meena Rao',
      'partners[0].full_name': 'Meena Rao',
      'partners[1].full_name': 'Arjun Iyer',
      'partners[1].role': 'Managing partner',
      'directors[0].full_name': 'Kiran Shah',
      'directors[1].full_name': 'Leela Das',
    },
  });
  const partner2 = control({ role: 'textbox', name: 'Full name', inputType: 'text', section: { name: 'Partner 2', ordinal: 2 } });
  const director2 = control({ role: 'textbox', name: 'Full name', inputType: 'text', section: { name: 'Second director', ordinal: 2 } });
  const block2 = control({ role: 'textbox', name: 'Full name', inputType: 'text', section: { name: '', ordinal: 2 } });
  const plain = control({ role: 'textbox', name: 'Your name', inputType: 'text' });
  const radio = control({ role: 'radio', name: 'Managing partner', inputType: 'radio', group: 'Role', section: { name: 'Partner 1', ordinal: 1 } });
  const ctx = context({ controls: [partner2, director2, block2, plain, radio], caseFile });

  it('refuses another person’s value in a person’s box, naming the right one', () => {
    const verdict = checkAction({ type: 'fill', ref: partner2.ref, field: 'partners[0].full_name' }, ctx);
    expect(verdict).toMatchObject({ verdict: 'block', rule: 'right-person' });
    expect(verdict.reason).toContain('Use "partners[1].full_name" there');
    expect(checkAction({ type: 'fill', ref: block2.ref, field: 'partners[0].full_name' }, ctx)).toMatchObject({ verdict: 'block', rule: 'right-person' });
    // A tick or radio choice is held to the person too.
    expect(checkAction({ type: 'check', ref: radio.ref, checked: true, field: 'partners[1].role' }, ctx)).toMatchObject({ verdict: 'block', rule: 'right-person' });
  });

  it('refuses the right ordinal of another group, and a plain field where the case has that person’s own', () => {
    expect(checkAction({ type: 'fill', ref: director2.ref, field: 'partners[1].full_name' }, ctx)).toMatchObject({ verdict: 'block', rule: 'right-person' });
    expect(checkAction({ type: 'fill', ref: partner2.ref, field: 'full_name' }, ctx)).toMatchObject({ verdict: 'block', rule: 'right-person' });
  });

  it('allows the person’s own value, records the block in the provenance, and leaves boxes of no person alone', () => {
    const verdict = checkAction({ type: 'fill', ref: partner2.ref, field: 'partners[1].full_name' }, ctx);
    expect(verdict).toMatchObject({ verdict: 'allow', provenance: { source: 'case', field: 'partners[1].full_name', section: { name: 'Partner 2', ordinal: 2 } } });
    expect(checkAction({ type: 'fill', ref: director2.ref, field: 'directors[1].full_name' }, ctx)).toMatchObject({ verdict: 'allow' });
    expect(rightPersonRule.check({ type: 'fill', ref: plain.ref, field: 'partners[0].full_name' }, ctx)).toBeUndefined();
    expect(rightPersonRule.check({ type: 'fill', ref: plain.ref, field: 'full_name' }, ctx)).toBeUndefined();
    // A case without groups: nothing to judge.
    const flat = context({ controls: [partner2], caseFile: makeCase({ fields: { full_name: 'Meena Rao' } }) });
    expect(rightPersonRule.check({ type: 'fill', ref: partner2.ref, field: 'full_name' }, flat)).toBeUndefined();
  });
});
