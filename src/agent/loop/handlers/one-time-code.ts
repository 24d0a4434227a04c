import { RESEND_CODE, type InputRequest } from '../../../shared/clerk';
import type { Action } from '../../../shared/action';
import type { Control, Observation } from '../../../shared/observation';
import { executeAction } from '../../act/executor';
import { checkAction } from '../../guard/guard';
import { enterOneTimeCode, findOneTimeCodeField, maskCode } from '../../portal/one-time-code';
import { endRun, failed, handled, PASS } from '../outcomes';
import type { RunContext } from '../run-context';
import type { PortalHandler } from './portal-handler';

/** The code page as this run last saw it: when the portal sent the code, and whether a code was typed since. */
const codePages = new WeakMap<RunContext, { sentAt: number; typed: boolean }>();

const RESEND = /\b(send (a |me a )?new code|resend( (the )?code)?|send (the )?code again|get a new code)\b/i;
const LIFETIME = /\bexpires? (?:in|after) (\d{1,3}) ?(minutes?|mins?|seconds?|secs?)\b/i;

/**
 * A one-time-code page: the clerk gives the code, code types it; the model never sees it. When the
 * same page comes back with the portal's complaint (a wrong or expired code), the clerk is told
 * what it said and asked again; where the portal offers a new code, the clerk may ask for one
 * (code presses the portal's button); the code's lifetime is shown where the page states it.
 */
export const oneTimeCodeHandler: PortalHandler = {
  id: 'one-time-code',
  async handle({ read, observation }, run) {
    const codeField = findOneTimeCodeField(observation, run.o.profile);
    if (!codeField) {
      codePages.delete(run);
      return PASS;
    }
    const seen = codePages.get(run);
    const problem = seen?.typed ? codeProblem(observation) : undefined;
    const sentAt = seen?.sentAt ?? Date.now();
    const lifetime = lifetimeMs(observation.text);
    const resend = observation.controls.find((c) => (c.role === 'button' || c.role === 'link') && !c.disabled && RESEND.test(c.name));
    const request: InputRequest = {
      runId: run.o.runId,
      step: run.state.step,
      kind: 'otp',
      question: problem
        ? 'Type the code again: check the latest message on the client’s phone.'
        : 'The portal sent a one-time code to the client’s phone. Type the code.',
      field: null,
      ...(problem ? { problem } : {}),
      ...(lifetime ? { expiresAt: new Date(sentAt + lifetime).toISOString() } : {}),
      ...(resend ? { canResend: true } : {}),
    };
    await run.setStatus('awaiting_input', problem ? `Waiting for you: the portal did not take the code (${problem}); type it again` : 'Waiting for you: type the one-time code');
    const waited = await run.waitForClerk('the one-time code question', () => run.o.inputs.ask(request));
    const answer = waited.kind === 'answered' ? waited.answer : null;
    await run.setStatus('running');
    if (answer === null) return endRun(failed('The clerk did not type the one-time code'));

    if (answer === RESEND_CODE) {
      if (!resend) return handled('One-time code page: the clerk asked for a new code, but the page offers none; asking again.');
      return askForNewCode(run, read, resend);
    }
    run.addSecret(answer);
    const typed = await run.asCode('type the one-time code the clerk gave', () => enterOneTimeCode(read, codeField, answer));
    run.note('otp', typed.ok ? `${problem ? 'Asked again, the clerk' : 'The clerk'} gave the one-time code ${maskCode(answer)}; code typed it into the portal` : typed.message);
    codePages.set(run, { sentAt, typed: true });
    run.tellModel('A one-time code was entered by code on the clerk’s behalf.');
    run.state.justSignedIn = true;
    return handled('One-time code page: the clerk gave the code; code typed it. The model never sees the code.');
  },
};

/** Code presses the portal's "Send a new code" for the clerk (through the guard and the commit gate, as code's). */
async function askForNewCode(run: RunContext, read: Parameters<PortalHandler['handle']>[0]['read'], resend: Control) {
  const action: Action = { type: 'click', ref: resend.ref };
  const verdict = checkAction(action, run.guardContext(read));
  if (verdict.verdict !== 'allow') {
    run.note('otp_resend', `The clerk asked for a new code; "${resend.name}" is not pressed by code (${verdict.reason})`);
    return handled('One-time code page: the clerk asked for a new code; the guard did not let code press the button.');
  }
  const outcome = await run.asCode(`ask the portal for a new code with ${resend.label}`, () => executeAction(run.o.page, read, action));
  run.note('otp_resend', outcome.status === 'done' ? `The clerk asked for a new code: code pressed "${resend.name}"` : `Asking for a new code failed: ${outcome.message ?? outcome.status}`);
  codePages.set(run, { sentAt: Date.now(), typed: false });
  return handled('One-time code page: the clerk asked the portal for a new code; code pressed its button.', [{ action, element: resend.label, verdict, outcome }]);
}

/** What the portal says about the code just typed: its error on the page (wrong, expired), if any. */
function codeProblem(observation: Observation): string | undefined {
  const messages = observation.errors.map((e) => e.message.trim()).filter(Boolean);
  return (messages.find((m) => /\b(code|incorrect|invalid|wrong|expired|not match)\b/i.test(m)) ?? messages[0])?.slice(0, 200);
}

/** How long the portal says its code lasts ("The code expires in 5 minutes"), in ms. */
function lifetimeMs(text: string): number | undefined {
  const m = LIFETIME.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return /^s/i.test(m[2]!) ? n * 1000 : n * 60_000;
}
