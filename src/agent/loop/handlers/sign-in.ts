import { isSignInPage, signIn } from '../../portal/sign-in';
import { endRun, failed, handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

const REFUSED_LOGIN = /\b(incorrect|invalid|wrong|not recogni[sz]ed|locked|failed)\b/i;

/** A sign-in page: code signs in from stored credentials; the model is paused. */
export const signInHandler: PortalHandler = {
  id: 'sign-in',
  async handle({ read, observation, afterSignIn }, run) {
    const { profile, caseFile } = run.o;
    if (!isSignInPage(observation, profile)) return PASS;
    // The sign-in page came straight back after code signed in, with an error: the stored login is wrong.
    const refusal = afterSignIn ? observation.errors.map((e) => e.message).find((m) => REFUSED_LOGIN.test(m)) : undefined;
    if (refusal) {
      return endRun(failed(`The portal refused the stored login for client ${caseFile.clientId} on ${profile.id} ("${refusal}"); update it with "portal-desk vault set", then run the case again`));
    }
    const state = run.state;
    state.signIns += 1;
    // The run's sign-in limit (RunLimits.maxSignIns, 4 unless the caller raises it).
    const maxSignIns = run.limits.maxSignIns;
    if (state.signIns > maxSignIns) return endRun(failed(`The portal asked to sign in ${maxSignIns} times; check the stored login for this client`));
    const credentials = await run.o.credentials.get(caseFile.clientId, profile.id);
    if (!credentials) {
      return endRun(failed(`No stored login for client ${caseFile.clientId} on portal ${profile.id}; add one with "portal-desk vault set"`));
    }
    run.addSecret(credentials.password);
    const result = await run.asCode('sign in from the vault', () => signIn(read, profile, credentials));
    run.note('sign_in', result.message);
    if (!result.retry) {
      if (!result.ok) return endRun(failed(result.message));
      state.justSignedIn = true;
      state.listChecked = false;
      const resumeNote = run.progress.resumeNote();
      run.tellModel(`Code signed in to the portal${state.signIns > 1 ? ' again (the session had expired)' : ''}.${resumeNote ? ` ${resumeNote}` : ''}`);
    }
    return handled('Sign-in page: code signs in from stored credentials; the model is paused.');
  },
};
