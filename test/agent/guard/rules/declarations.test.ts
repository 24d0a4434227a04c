import { describe, expect, it } from 'vitest';
import { declarationRule } from '../../../../src/agent/guard/rules/declarations';
import { context, control, makeCase } from '../fixtures';

describe('declaration rule', () => {
  const listed = control({ role: 'checkbox', name: 'I declare that the information given is true and correct to the best of my knowledge *' });
  const unlisted = control({ role: 'checkbox', name: 'I consent to share my data with partner agencies' });
  const extended = control({ role: 'checkbox', name: 'I declare that the information given is true, and I agree to pay a late fee' });
  const same = control({ role: 'checkbox', name: 'Same as business address' });
  const terms = control({ role: 'checkbox', name: 'Accept terms' });
  const payRadio = control({ role: 'radio', name: 'Online', group: 'Payment method' });
  const plainRadio = control({ role: 'radio', name: 'Proprietorship', group: 'Business type' });
  const ctx = context({ controls: [listed, unlisted, extended, same, terms, payRadio, plainRadio] });

  it('allows ticking a declaration the case lists', () => {
    expect(declarationRule.check({ type: 'check', ref: listed.ref, checked: true }, ctx)).toMatchObject({ verdict: 'allow', rule: 'declaration' });
  });

  it('sends a declaration the case does not list to the clerk', () => {
    expect(declarationRule.check({ type: 'check', ref: unlisted.ref, checked: true }, ctx)).toMatchObject({ verdict: 'needs_approval', reason: expect.stringContaining('does not list') });
  });

  it('does not let a listed declaration cover extra risky words in the label', () => {
    const verdict = declarationRule.check({ type: 'check', ref: extended.ref, checked: true }, ctx);
    expect(verdict).toMatchObject({ verdict: 'needs_approval' });
    expect(verdict?.reason).toContain('“pay”');
  });

  it('counts a yes/no case field named like the box as listed', () => {
    expect(declarationRule.check({ type: 'check', ref: terms.ref, checked: true }, ctx)).toMatchObject({ verdict: 'allow' });
    const no = context({ controls: [terms], caseFile: makeCase({ fields: { accept_terms: false } }) });
    expect(declarationRule.check({ type: 'check', ref: terms.ref, checked: true }, no)).toMatchObject({ verdict: 'needs_approval' });
  });

  it('needs a listed declaration of at least three whole words', () => {
    const short = context({ controls: [unlisted], caseFile: makeCase({ declarations: ['I', 'I consent', 'con', '...'] }) });
    expect(declarationRule.check({ type: 'check', ref: unlisted.ref, checked: true }, short)).toMatchObject({ verdict: 'needs_approval' });
    const partWord = context({ controls: [unlisted], caseFile: makeCase({ declarations: ['I consent to sha'] }) });
    expect(declarationRule.check({ type: 'check', ref: unlisted.ref, checked: true }, partWord)).toMatchObject({ verdict: 'needs_approval' });
    const enough = context({ controls: [unlisted], caseFile: makeCase({ declarations: ['I consent to share my data'] }) });
    expect(declarationRule.check({ type: 'check', ref: unlisted.ref, checked: true }, enough)).toMatchObject({ verdict: 'allow' });
  });

  it('does not let a listed declaration cover another declaration added to the label', () => {
    const more = control({ role: 'checkbox', name: 'I declare that the information given is true and I consent to an inspection' });
    const verdict = declarationRule.check({ type: 'check', ref: more.ref, checked: true }, context({ controls: [more] }));
    expect(verdict).toMatchObject({ verdict: 'needs_approval', reason: expect.stringContaining('“consent”') });
  });

  it('reads the group: a payment choice waits for the clerk, an ordinary one passes', () => {
    expect(declarationRule.check({ type: 'check', ref: payRadio.ref, checked: true }, ctx)).toMatchObject({ verdict: 'needs_approval' });
    expect(declarationRule.check({ type: 'check', ref: plainRadio.ref, checked: true }, ctx)).toBeUndefined();
    expect(declarationRule.check({ type: 'check', ref: same.ref, checked: true }, ctx)).toBeUndefined();
  });

  it('lets a payment choice the case names pass, and only that choice', () => {
    const upi = control({ role: 'radio', name: 'UPI', group: 'Payment mode' });
    const card = control({ role: 'radio', name: 'Card', group: 'Payment mode' });
    const caseFile = makeCase({ fields: { payment_mode: 'UPI' } });
    const withCase = context({ controls: [upi, card], caseFile });
    expect(declarationRule.check({ type: 'check', ref: upi.ref, checked: true }, withCase)).toMatchObject({ verdict: 'allow', reason: expect.stringContaining('payment_mode') });
    expect(declarationRule.check({ type: 'check', ref: card.ref, checked: true }, withCase)).toMatchObject({ verdict: 'needs_approval' });
    // The value alone is not enough: the group must be the field (or one of its aliases).
    const elsewhere = control({ role: 'radio', name: 'UPI', group: 'Refund payment to' });
    expect(declarationRule.check({ type: 'check', ref: elsewhere.ref, checked: true }, context({ controls: [elsewhere], caseFile }))).toMatchObject({ verdict: 'needs_approval' });
    const aliased = control({ role: 'radio', name: 'UPI', group: 'Payment made through' });
    const aliasCase = makeCase({ fields: { payment_mode: 'UPI' }, aliases: { payment_mode: ['Payment made through'] } });
    expect(declarationRule.check({ type: 'check', ref: aliased.ref, checked: true }, context({ controls: [aliased], caseFile: aliasCase }))).toMatchObject({ verdict: 'allow' });
  });

  it('lets unticking pass', () => {
    expect(declarationRule.check({ type: 'check', ref: unlisted.ref, checked: false }, ctx)).toBeUndefined();
  });
});
