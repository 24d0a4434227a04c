import { describe, expect, it } from 'vitest';
import { riskyControlRule } from '../../../../src/agent/guard/rules/risky-control';
import { context, control, makeProfile } from '../fixtures';

describe('risky-control rule', () => {
  const submit = control({ role: 'button', name: 'Submit application' });
  const submitted = control({ role: 'link', name: 'Submitted applications' });
  const pay = control({ role: 'button', name: 'Pay now' });
  const payee = control({ role: 'textbox', name: 'Payee name' });
  const next = control({ role: 'button', name: 'Save and continue' });
  const gated = control({ role: 'button', name: 'Continue', gated: true });
  const gatedBox = control({ role: 'textbox', name: 'Amount', gated: true });
  const unnamed = control({ role: 'button', name: '', nameSource: 'none', label: 'button (no name)' });
  const ctx = context({ controls: [submit, submitted, pay, payee, next, gated, gatedBox, unnamed] });

  it('sends clicks on risky names to the clerk, on word boundaries', () => {
    expect(riskyControlRule.check({ type: 'click', ref: submit.ref }, ctx)).toMatchObject({ verdict: 'needs_approval', rule: 'risky-control', reason: expect.stringContaining('“submit”') });
    expect(riskyControlRule.check({ type: 'click', ref: pay.ref }, ctx)).toMatchObject({ verdict: 'needs_approval' });
    expect(riskyControlRule.check({ type: 'click', ref: submitted.ref }, ctx)).toBeUndefined();
    expect(riskyControlRule.check({ type: 'click', ref: payee.ref }, ctx)).toBeUndefined();
    expect(riskyControlRule.check({ type: 'click', ref: next.ref }, ctx)).toBeUndefined();
  });

  it('uses the profile’s own risky words', () => {
    const custom = context({ controls: [next], profile: makeProfile({ riskyWords: ['continue'] }) });
    expect(riskyControlRule.check({ type: 'click', ref: next.ref }, custom)).toMatchObject({ verdict: 'needs_approval' });
  });

  it('sends every action on a gated control to the clerk', () => {
    expect(riskyControlRule.check({ type: 'click', ref: gated.ref }, ctx)).toMatchObject({ verdict: 'needs_approval', reason: expect.stringContaining('data-agent-gate') });
    expect(riskyControlRule.check({ type: 'fill', ref: gatedBox.ref, field: 'business_name' }, ctx)).toMatchObject({ verdict: 'needs_approval' });
    expect(riskyControlRule.check({ type: 'check', ref: gated.ref, checked: true }, ctx)).toMatchObject({ verdict: 'needs_approval' });
  });

  it('sends a click on a control with no name to the clerk', () => {
    expect(riskyControlRule.check({ type: 'click', ref: unnamed.ref }, ctx)).toMatchObject({ verdict: 'needs_approval', reason: expect.stringContaining('no name') });
  });

  it('sends Enter and Space to the clerk (focus is unknown) and lets other keys pass', () => {
    expect(riskyControlRule.check({ type: 'press', key: 'Enter' }, ctx)).toMatchObject({ verdict: 'needs_approval' });
    expect(riskyControlRule.check({ type: 'press', key: 'Space' }, ctx)).toMatchObject({ verdict: 'needs_approval' });
    for (const key of ['Tab', 'Escape', 'ArrowDown', 'ArrowUp'] as const) {
      expect(riskyControlRule.check({ type: 'press', key }, ctx)).toBeUndefined();
    }
  });

  it('leaves ticking to the declaration rule and unknown refs to the unknown-ref rule', () => {
    const box = control({ role: 'checkbox', name: 'I confirm the details' });
    expect(riskyControlRule.check({ type: 'check', ref: box.ref, checked: true }, context({ controls: [box] }))).toBeUndefined();
    expect(riskyControlRule.check({ type: 'click', ref: 'r0c0' }, ctx)).toBeUndefined();
  });
});
