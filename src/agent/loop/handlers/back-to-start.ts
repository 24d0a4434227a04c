import { isConfirmationPage } from '../../portal/page-kind';
import { handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** After a sign-in mid-form the portal may land on a page of a lost session: code opens the start page, where the saved draft is offered. */
export const backToStartHandler: PortalHandler = {
  id: 'back-to-start',
  async handle({ observation, afterSignIn }, run) {
    const { profile } = run.o;
    const progress = run.progress;
    if (!afterSignIn || (!progress.hasWorkInProgress && !progress.mayHaveSubmitted)) return PASS;
    if (isConfirmationPage(observation, profile)) return PASS;
    const here = new URL(observation.url);
    const start = new URL(profile.startUrl);
    if (here.host === start.host && here.pathname === start.pathname) return PASS;
    const draft = progress.current.draftId;
    run.note('reopen_draft', `Signed in again mid-form: opening ${start.href} to continue ${draft ? `saved draft ${draft}` : 'the saved work'} instead of a new application`);
    await run.goto(start.href);
    return handled('Signed in again with work in progress: code opened the portal’s start page, where the saved draft is offered.');
  },
};
