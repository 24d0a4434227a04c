import { describe, expect, it } from 'vitest';
import { unknownRefRule } from '../../../../src/agent/guard/rules/unknown-ref';
import { context, control } from '../fixtures';

describe('unknown-ref rule', () => {
  const save = control({ role: 'button', name: 'Save draft' });
  const ctx = context({ controls: [save] });

  it('blocks every ref-carrying action whose ref is not in the current read', () => {
    for (const action of [
      { type: 'click', ref: 'r0c1' },
      { type: 'fill', ref: 'e6', field: 'business_name' },
      { type: 'select', ref: 'r9c9', field: 'district' },
      { type: 'check', ref: 'r9c9', checked: true },
    ] as const) {
      const verdict = unknownRefRule.check(action, ctx);
      expect(verdict).toMatchObject({ verdict: 'block', rule: 'unknown-ref' });
      expect(verdict?.reason).toContain('Nothing was done');
    }
  });

  it('passes refs of this read and actions without refs', () => {
    expect(unknownRefRule.check({ type: 'click', ref: save.ref }, ctx)).toBeUndefined();
    expect(unknownRefRule.check({ type: 'goto', url: 'https://shops.portal.example/' }, ctx)).toBeUndefined();
  });

  it('does not echo a long made-up ref in full', () => {
    const verdict = unknownRefRule.check({ type: 'click', ref: 'x'.repeat(32) }, ctx);
    expect(verdict?.reason.length).toBeLessThan(250);
  });
});
