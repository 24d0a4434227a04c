import { enterOneTimeCode, findOneTimeCodeField, maskCode } from '../../portal/one-time-code';
import { endRun, failed, handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** A one-time-code page: the clerk types the code, code enters it; the model never sees it. */
export const oneTimeCodeHandler: PortalHandler = {
  id: 'one-time-code',
  async handle({ read, observation }, run) {
    const codeField = findOneTimeCodeField(observation, run.o.profile);
    if (!codeField) return PASS;
    const code = await run.askClerk('otp', 'The portal sent a one-time code to the client’s phone. Type the code.', null);
    if (code === null) return endRun(failed('The clerk did not type the one-time code'));
    run.addSecret(code);
    const typed = await run.asCode('type the one-time code the clerk gave', () => enterOneTimeCode(read, codeField, code));
    run.note('otp', typed.ok ? `One-time code ${maskCode(code)} typed by code` : typed.message);
    run.tellModel('A one-time code was entered by code on the clerk’s behalf.');
    run.state.justSignedIn = true;
    return handled('One-time code page: the clerk typed the code; code entered it. The model never sees the code.');
  },
};
