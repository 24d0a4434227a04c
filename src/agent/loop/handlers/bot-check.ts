import { detectBotChallenge } from '../../portal/bot-check';
import { endRun, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** A CAPTCHA or "verify you are human" page: the run ends `blocked`, over to the clerk. */
export const botCheckHandler: PortalHandler = {
  id: 'bot-check',
  async handle({ observation }, run) {
    const challenge = detectBotChallenge(run.o.page, observation);
    if (!challenge) return PASS;
    run.note('bot_challenge', `The portal shows ${challenge}. Over to the clerk: solve it in the portal, then start the run again.`);
    run.o.listener?.log?.(`HAND-OFF: ${run.o.profile.name} shows ${challenge} for client ${run.o.caseFile.clientId}; solve it in the portal by hand, then run the case again.`);
    return endRun(
      { status: 'blocked', reason: `bot_challenge: ${challenge}` },
      { reasoning: 'Bot check detected by code; the model is not asked and the clerk is not asked to type anything.' },
    );
  },
};
