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

/** The run needs the clerk now (an approval, a code, an answer). */
export function isWaiting(view: RunView): boolean {
  return !!view.pendingApproval || !!view.pendingInput || view.run.status === 'awaiting_approval' || view.run.status === 'awaiting_input';
}

export function isLive(view: RunView): boolean {
  return ['queued', 'running', 'awaiting_approval', 'awaiting_input'].includes(view.run.status);
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
  const run = view.run;
  if (run.status === 'done' && run.applicationNumber) return `Submitted — application number ${run.applicationNumber}`;
  if (isBotChallenge(view)) return 'A bot check (CAPTCHA) stopped the run: solve it in the portal, then hand the case back';
  return run.reason ?? '';
}
