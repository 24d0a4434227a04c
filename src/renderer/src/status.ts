import { heldRequestLine } from '../../shared/clerk';
import type { RunView } from '../../shared/console-api';
import type { RunStatus } from '../../shared/run';

/** How a status looks: the chip's words and its colour family. */
export type Tone = 'running' | 'waiting' | 'done' | 'failed' | 'blocked' | 'idle';

const LOOKS: Record<RunStatus, { label: string; tone: Tone }> = {
  queued: { label: 'queued', tone: 'idle' },
  running: { label: 'running', tone: 'running' },
  awaiting_approval: { label: 'waiting for you', tone: 'waiting' },
  awaiting_input: { label: 'waiting for you', tone: 'waiting' },
  done: { label: 'done', tone: 'done' },
  failed: { label: 'failed', tone: 'failed' },
  blocked: { label: 'blocked', tone: 'blocked' },
  interrupted: { label: 'interrupted', tone: 'idle' },
};

export function statusLook(status: RunStatus): { label: string; tone: Tone } {
  return LOOKS[status];
}

/** The run needs the clerk now (an approval, a code, an answer, a bot check to take over). */
export function isWaiting(view: RunView): boolean {
  return (
    !!view.pendingApproval ||
    !!view.pendingInput ||
    (!!view.pendingTakeOver && view.pendingTakeOver.state !== 'asked') ||
    view.run.status === 'awaiting_approval' ||
    view.run.status === 'awaiting_input'
  );
}

/** The clerk denied a gated action or a held request: a decision, not an error. */
export function isDenied(view: RunView): boolean {
  return view.run.status === 'failed' && /^Denied by /.test(view.run.reason ?? '');
}

/** A run that stopped without an ending (the console closed, the portal stopped answering): the clerk can resume it. */
export function isResumable(view: RunView): boolean {
  return view.run.status === 'interrupted' && !view.phase;
}

/** The case's name for people: the case file's display name, else its id. */
export function caseName(view: RunView): string {
  return view.displayName ?? view.run.caseId;
}

const PHASES: Record<NonNullable<RunView['phase']>, string> = {
  starting_browser: 'Starting the browser',
  opening_portal: 'Opening the portal',
  signing_in: 'Signing in by code',
  reading_page: 'Reading the page',
  deciding: 'Deciding the next step',
  acting: 'Filling the form',
  waiting_portal: 'Waiting for the portal to answer',
};

/** The phases a new run goes through before its first decision, for the Run screen's first seconds. */
export const START_PHASES: readonly NonNullable<RunView['phase']>[] = ['starting_browser', 'opening_portal', 'signing_in', 'reading_page'];

export function phaseLabel(phase: RunView['phase']): string {
  return phase ? PHASES[phase] : '';
}

/** The run is working in this console (a resumed one from the moment its browser starts). */
export function isLive(view: RunView): boolean {
  return ['queued', 'running', 'awaiting_approval', 'awaiting_input'].includes(view.run.status) || !!view.phase;
}

/** The CAPTCHA / "verify you are human" ending: the clerk takes over in the portal. */
export function isBotChallenge(view: RunView): boolean {
  return view.run.status === 'blocked' && (view.run.reason ?? '').startsWith('bot_challenge');
}

/** One line on where the run is, for chips and headers. */
export function reasonLine(view: RunView): string {
  if (view.pendingApproval) {
    const a = view.pendingApproval;
    return `Approve or deny: ${a.request ? heldRequestLine(a.request) : (a.element ?? a.action?.type ?? 'an action')}`;
  }
  if (view.pendingInput) return view.pendingInput.kind === 'otp' ? 'Type the one-time code the client received' : view.pendingInput.question;
  const takeOver = view.pendingTakeOver;
  if (takeOver?.state === 'offered') return `Take over: the portal shows ${takeOver.detail}`;
  if (takeOver?.state === 'active') return 'You have the portal: hand it back when you are done';
  if (takeOver?.state === 'asked') return 'Handing the portal to you after the current action';
  const run = view.run;
  if (isDenied(view)) return `Your decision: not to ${deniedWhat(run.reason ?? '')}. The run stopped there; start the case again when it should go on.`;
  if (run.status === 'interrupted') return /resum/i.test(run.reason ?? '') ? (run.reason ?? '') : `${run.reason ?? 'Stopped'} — resume to go on`;
  if (run.status === 'done' && run.applicationNumber) return `Submitted — application number ${run.applicationNumber}`;
  if (isBotChallenge(view)) return 'A bot check (CAPTCHA) stopped the run and nobody took it over';
  return run.reason ?? '';
}

/**
 * What a denial stopped, from the run's reason: "Denied by clerk:asha: click button "Submit"" →
 * `click button "Submit"`; a held request's "send POST … was not sent" → "send POST …". The
 * clerk's name may hold a colon (`clerk:asha`): the name ends at the first colon and space.
 */
function deniedWhat(reason: string): string {
  return reason.replace(/^Denied by .+?: /, '').replace(/ was not sent$/, '');
}
