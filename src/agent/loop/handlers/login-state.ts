import { errorText } from '../../../base/error-text';
import { PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** Right after a sign-in: the context's cookies and storage are saved for the next run of this client (encrypted by the store). */
export const loginStateHandler: PortalHandler = {
  id: 'login-state',
  async handle({ afterSignIn }, run) {
    const { loginStates, page, caseFile, profile } = run.o;
    if (!afterSignIn || !loginStates) return PASS;
    try {
      const state = await page.context().storageState();
      await loginStates.save(caseFile.clientId, profile.id, JSON.stringify(state));
    } catch (err) {
      run.note('login_state_not_saved', errorText(err));
    }
    return PASS;
  },
};
