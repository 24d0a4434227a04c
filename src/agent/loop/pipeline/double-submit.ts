import { isFinalReviewPage } from '../../portal/page-kind';
import { ended, next, ran, type ActionStage, type PendingAction } from './pending-action';
import type { RunContext } from '../run-context';

const SUBMIT_WORD = /\bsubmit\b/i;
/** Unreadable applications lists in a row before the run stops instead of risking a second submission. */
const MAX_LIST_FAILURES = 3;

/** The final submit of the form: a submit-like click on the final-review page. */
function isSubmission(p: PendingAction, run: RunContext): boolean {
  if (p.action.type !== 'click') return false;
  const control = p.read.control(p.action.ref);
  return !!control && SUBMIT_WORD.test(control.name) && isFinalReviewPage(p.read.observation, run.o.profile);
}

/**
 * Right before the final submit: when an earlier submit may have gone through, the applications
 * list answers first. Found: the run ends `done` without a second submission. Unreadable: the
 * click waits (the page is reloaded, a lost session signed in again); three times in a row and
 * the run stops `blocked` for the clerk to check by hand. Passed: the next submission may go.
 */
export const doubleSubmitStage: ActionStage = {
  id: 'double-submit',
  async run(p, run) {
    if (!isSubmission(p, run)) return next(p);
    const { page, profile } = run.o;
    const state = run.state;
    const decision = await run.progress.beforeSubmit(page, profile);
    if (decision.kind === 'found') {
      run.note('already_submitted', `An earlier submit went through: ${decision.proof}. Not submitting again.`);
      return ended(
        p,
        { status: 'skipped', message: `already submitted as ${decision.applicationNumber}; not submitting again` },
        { status: 'done', reason: `Already submitted earlier: ${decision.proof}`, applicationNumber: decision.applicationNumber },
      );
    }
    if (decision.kind === 'unsure') {
      state.listFailures += 1;
      const message = `not clicked: an earlier submit may have gone through and ${decision.reason}`;
      if (state.listFailures >= MAX_LIST_FAILURES) {
        return ended(
          p,
          { status: 'skipped', message },
          {
            status: 'blocked',
            // The decision's reason says what the list could not tell: it could not be read, or it shows a number tied to no case.
            reason: `An earlier submit may have gone through and ${decision.reason}; not submitting again. Check ${profile.applicationsUrl ?? 'the portal'} by hand.`,
          },
        );
      }
      // Reloading shows whether the session is still there; a lost one is signed in again.
      // Code's own reload goes through the commit gate like any request (a page that came from a POST is not sent again unasked).
      await run.asCode('reload the page to see whether the session is still there', () => page.reload({ waitUntil: 'domcontentloaded', timeout: 30_000 })).catch(() => undefined);
      return ran(p, { status: 'skipped', message });
    }
    state.listFailures = 0;
    state.submissionCleared = true;
    return next(p);
  },
};
