import { isConfirmationPage } from '../../portal/page-kind';
import { endRun, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/**
 * A submit may have gone through earlier (a lost confirmation, a killed process): the
 * applications list answers before anything else happens, once after each sign-in. Found: the
 * run ends `done`; unreadable, it is tried again after the next sign-in, and always right before
 * any submit (the action pipeline's double-submit check).
 */
export const earlierSubmissionHandler: PortalHandler = {
  id: 'earlier-submission',
  async handle({ observation, proof }, run) {
    const { profile, page } = run.o;
    const state = run.state;
    if (!run.progress.mayHaveSubmitted || state.listChecked || !profile.applicationsUrl) return PASS;
    if ((await proof()).ok || isConfirmationPage(observation, profile)) return PASS;
    const check = await run.progress.checkApplicationsList(page, profile);
    if (check.kind === 'found') {
      const shown = `application ${check.applicationNumber} on the applications list (${check.matchedBy})`;
      run.note('already_submitted', `An earlier submit went through: ${shown}. Not submitting again.`);
      return endRun(
        { status: 'done', reason: `Already submitted earlier: ${shown}`, applicationNumber: check.applicationNumber },
        { reasoning: 'An earlier attempt submitted this case: code found it on the portal’s applications list.' },
      );
    }
    state.listChecked = true;
    if (check.kind === 'absent') {
      state.listFailures = 0;
      run.note('applications_list', 'An earlier submit was started but this case is not on the applications list: the form goes on');
    } else {
      run.note('applications_list', `Could not check the applications list yet: ${check.reason}`);
    }
    return PASS;
  },
};
