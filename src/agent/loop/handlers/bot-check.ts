import { detectBotChallenge } from '../../portal/bot-check';
import { endRun, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';
import { afterTakeOver, clerkTakesOver, forgetHandBack, justHandedBack } from './take-over';

/**
 * A CAPTCHA or "verify you are human" page. The agent never solves one and never turns it into a
 * text prompt: the run pauses and the clerk takes the portal over (in the run's own guarded
 * session), then hands it back and the same run goes on. `blocked` when the clerk declines, or
 * where nobody can take over (no take-over desk: the CLI).
 */
export const botCheckHandler: PortalHandler = {
  id: 'bot-check',
  async handle({ observation }, run) {
    const challenge = detectBotChallenge(run.o.page, observation);
    if (!challenge) {
      forgetHandBack(run);
      return PASS;
    }
    if (justHandedBack(run, run.o.page.url())) {
      run.note('bot_challenge', `The page still shows ${challenge} after the clerk handed it back (a solved check often stays on the page): the run goes on`);
      return PASS;
    }
    if (!run.o.takeOvers) {
      run.note('bot_challenge', `The portal shows ${challenge}. Over to the clerk: solve it in the portal, then start the run again.`);
      run.o.listener?.log?.(`HAND-OFF: ${run.o.profile.name} shows ${challenge} for client ${run.o.caseFile.clientId}; solve it in the portal by hand, then run the case again.`);
      return endRun(
        { status: 'blocked', reason: `bot_challenge: ${challenge}` },
        { reasoning: 'Bot check detected by code; the model is not asked and the clerk is not asked to type anything.' },
      );
    }
    run.note('bot_challenge', `The portal shows ${challenge}. The run pauses for the clerk to take over; the agent never solves a bot check.`);
    const result = await clerkTakesOver(run, 'bot_check', challenge);
    if (!result.handedBack) {
      return endRun(
        { status: 'blocked', reason: `bot_challenge: ${challenge}; ${result.by === 'console' ? 'the run ended before anyone took over' : `${result.by} declined to take over`}` },
        { reasoning: 'Bot check detected by code; the run paused for the clerk, who did not take the portal over. The model was not asked.' },
      );
    }
    return afterTakeOver(run, result, 'bot_check', 'Bot check detected by code: the run paused and the clerk took the portal over by hand; the model was not asked.');
  },
};
