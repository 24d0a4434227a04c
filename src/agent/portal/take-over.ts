import type { Page } from 'playwright-core';
import type { TakeOverDesk, TakeOverEnd, TakeOverRequest } from '../../shared/clerk';
import { challengeHostsOf } from '../guard/challenge-hosts';
import type { CommitGate } from '../guard/commit-gate';
import { reloadChallenge } from './challenge-reload';

/**
 * A take-over: the run's portal goes to the clerk, in the run's own guarded session (the same
 * browser context: egress lock, downloads off, pop-ups closed, forbidden paths refused), and the
 * run waits. While the clerk has it, a commit request their own click or key sends is theirs (the
 * commit gate's `byHand` cause: approved by them, no second approval; a submission still checked
 * against an earlier one); one the page sends on its own is asked about. The agent's approvals
 * do not apply to the clerk's clicks.
 *
 * While a clerk holds the portal (from the desk's `taken` to the end), the profile's challenge
 * hosts are open (`ChallengeHosts`): the CAPTCHA's frame is loaded again so they can solve it,
 * and the hosts close as the take-over ends, however it ends. The step log says when.
 *
 * The loop calls this for a bot check (the agent never solves one and never makes it a text
 * prompt) and when the clerk asks to take over; it records the step before (the page as the clerk
 * got it) and the step after (the page as they handed it back), then reads the page afresh.
 */
interface TakeOverContext {
  runId: string;
  step: number;
  gate: CommitGate;
  desk: TakeOverDesk;
  /** The run's portal page (its context's challenge hosts open while the clerk holds it). */
  page: Page;
  /** A line in the step log. */
  note(type: string, message: string): void;
  /** The run's status while it waits (`awaiting_input`, with what for) and after (`running`). */
  setStatus(status: 'awaiting_input' | 'running', reason?: string): Promise<void>;
}

export interface TakeOverResult extends TakeOverEnd {
  /** How long the run waited for the clerk, in ms. */
  waitedMs: number;
}

export async function handOverToClerk(o: TakeOverContext, reason: TakeOverRequest['reason'], detail: string): Promise<TakeOverResult> {
  await o.setStatus(
    'awaiting_input',
    reason === 'bot_check' ? `Waiting for you: take over — the portal shows ${detail}` : 'Waiting for you: you have the portal; hand it back when you are done',
  );
  const started = Date.now();
  const challenges = challengeHostsOf(o.page.context());
  let loading: Promise<void> | undefined;
  const taken = (): void => {
    if (!challenges?.open()) return;
    loading = reloadChallenge(o.page, challenges).then(
      (line) => o.note('challenge_hosts', `Opened the challenge hosts (${challenges.hosts.join(', ')}) while the clerk holds the portal; ${line}`),
      () => undefined,
    );
  };
  try {
    const end = await o.gate.during(
      { step: o.step, description: 'the clerk, working the portal by hand (take-over)', approved: false, byHand: (url, carried) => o.desk.claimByHand(o.runId, url, carried) },
      () => o.desk.takeOver({ runId: o.runId, step: o.step, reason, detail }, taken),
    );
    return { ...end, waitedMs: Date.now() - started };
  } finally {
    await loading;
    if (challenges?.close()) o.note('challenge_hosts', `Closed the challenge hosts (${challenges.hosts.join(', ')}): the take-over ended; they are refused again`);
    await o.setStatus('running');
  }
}

/** The step log's line for a take-over that ended. */
export function takeOverLine(result: TakeOverResult, reason: TakeOverRequest['reason']): string {
  const seconds = Math.round(result.waitedMs / 1000);
  const note = result.note ? ` (“${result.note}”)` : '';
  if (result.handedBack) return `${result.by} took over${reason === 'bot_check' ? ' the bot check' : ''} and handed the portal back after ${seconds} s${note}; the run goes on from a fresh read of the page`;
  return `${result.by === 'console' ? 'The run ended before the clerk' : `${result.by} declined to`} take over${reason === 'bot_check' ? ' the bot check' : ''}${note}`;
}
