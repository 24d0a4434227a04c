import type { TakeOverRequest } from '../../../shared/clerk';
import { handOverToClerk, takeOverLine, type TakeOverResult } from '../../portal/take-over';
import { PASS, type HandlerOutcome } from '../outcomes';
import type { RunContext } from '../run-context';
import type { PortalHandler } from './portal-handler';

/** Where each run's clerk last handed the portal back (the page's address), for the bot check just after. */
const handedBackOn = new WeakMap<RunContext, string>();

/**
 * The clerk asked to take the portal over (the console's Take over): before the read is acted on,
 * the portal is theirs in the run's own guarded session; the step records the page as they got it
 * and, as its after picture, the page as they handed it back. The run then reads the page afresh.
 */
export const takeOverHandler: PortalHandler = {
  id: 'take-over',
  async handle(_turn, run) {
    const desk = run.o.takeOvers;
    if (!desk?.wantsTakeOver(run.o.runId)) return PASS;
    const result = await clerkTakesOver(run, 'clerk', 'you asked to take over');
    return afterTakeOver(run, result, 'clerk', 'The clerk took over the portal by hand; the model was not asked.');
  },
};

/** The portal goes to the clerk and comes back (or not): what the step log says. */
export async function clerkTakesOver(run: RunContext, reason: TakeOverRequest['reason'], detail: string): Promise<TakeOverResult> {
  const desk = run.o.takeOvers!;
  // The clerk's time with the portal is not the agent's working time.
  const result = await run.clerkTime(() => handOverToClerk(
    { runId: run.o.runId, step: run.state.step, gate: run.o.gate, desk, page: run.o.page, note: (type, line) => run.note(type, line), setStatus: (status, why) => run.setStatus(status, why) },
    reason,
    detail,
  ));
  run.note(result.handedBack ? 'take_over' : 'take_over_declined', takeOverLine(result, reason));
  return result;
}

/** The step of a take-over that ended with the portal handed back: before and after pictures, and a fresh read next. */
export async function afterTakeOver(run: RunContext, result: TakeOverResult, reason: TakeOverRequest['reason'], reasoning: string): Promise<HandlerOutcome> {
  if (!result.handedBack) return PASS;
  handedBackOn.set(run, run.o.page.url());
  run.tellModel(`The clerk worked the portal by hand${reason === 'bot_check' ? ' (a bot check)' : ''} and handed it back: read the page as it is now; earlier refs are gone.`);
  run.state.previous = [];
  const after = await run.screenshot();
  return { kind: 'handled', step: { reasoning: `${reasoning} ${result.by} handed it back after ${Math.round(result.waitedMs / 1000)} s.`, after } };
}

/**
 * Right after a hand-back the page may still show the check the clerk solved (a ticked CAPTCHA
 * stays on a sign-in page): the first read of that same address goes on instead of pausing again.
 */
export function justHandedBack(run: RunContext, url: string): boolean {
  const at = handedBackOn.get(run);
  handedBackOn.delete(run);
  return at !== undefined && at === url;
}

/** Any read of another page ends the grace of a hand-back. */
export function forgetHandBack(run: RunContext): void {
  handedBackOn.delete(run);
}
