import { describe, expect, it } from 'vitest';
import { finalReviewRule } from '../../../../src/agent/guard/rules/final-review';
import { context, control, makeProfile } from '../fixtures';

describe('final-review rule', () => {
  const change = control({ role: 'link', name: 'Change business name' });
  const send = control({ role: 'button', name: 'Send' });
  const name = control({ role: 'textbox', name: 'Name of the establishment' });
  const review = { title: 'Shops portal', headings: ['Check your answers before sending'] };

  it('sends every click on a final-review page to the clerk, Change links included', () => {
    const ctx = context({ controls: [change, send, name], page: review });
    for (const ref of [change.ref, send.ref]) {
      expect(finalReviewRule.check({ type: 'click', ref }, ctx)).toMatchObject({ verdict: 'needs_approval', rule: 'final-review' });
    }
  });

  it('finds the page by title as well as headings, ignoring case, with the profile’s patterns', () => {
    expect(finalReviewRule.check({ type: 'click', ref: send.ref }, context({ controls: [send], page: { title: 'REVIEW YOUR APPLICATION', headings: [] } }))).toMatchObject({ verdict: 'needs_approval' });
    const custom = makeProfile({ finalReviewPatterns: ['summary of your return'] });
    expect(finalReviewRule.check({ type: 'click', ref: send.ref }, context({ controls: [send], profile: custom, page: { headings: ['Summary of your return'] } }))).toMatchObject({ verdict: 'needs_approval' });
    expect(finalReviewRule.check({ type: 'click', ref: send.ref }, context({ controls: [send], profile: custom, page: review }))).toBeUndefined();
  });

  it('leaves other pages and other actions alone', () => {
    expect(finalReviewRule.check({ type: 'click', ref: send.ref }, context({ controls: [send] }))).toBeUndefined();
    expect(finalReviewRule.check({ type: 'fill', ref: name.ref, field: 'business_name' }, context({ controls: [name], page: review }))).toBeUndefined();
  });
});
