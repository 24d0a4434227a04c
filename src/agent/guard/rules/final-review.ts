import { isFinalReviewPage } from '../../portal/page-kind';
import { needsApproval, type GuardRule } from './rule';

/**
 * On a final-review page ("Check your answers", "Review and submit": the profile's
 * `finalReviewPatterns` in the title or a heading), every click waits for the clerk, "Change"
 * and "Back" links included. On this page one click sends the application, control names are
 * page text (a page can call its submit button "Change"), and approving a harmless Change link
 * costs the clerk one click. Typing and ticking are judged by their own rules.
 */
export const finalReviewRule: GuardRule = {
  id: 'final-review',
  check(action, ctx) {
    if (action.type !== 'click' || !isFinalReviewPage(ctx.observation, ctx.profile)) return undefined;
    const control = ctx.control(action.ref);
    return needsApproval(
      'final-review',
      `This is the final review page; one click here sends the application, so the clerk approves every click on it${control ? ` (this one: ${control.label})` : ''}.`,
    );
  },
};
