import type { Action } from '../../../shared/action';
import { executeAction } from '../../act/executor';
import { checkAction } from '../../guard/guard';
import { findInterruption } from '../../portal/interruption';
import { handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** Dialogs code declines per run; one that keeps coming back after that is the planner's to deal with. */
const MAX_INTERRUPTIONS = 6;

/**
 * A cookie banner or survey dialog covering the page: code declines it (the model is not asked),
 * through the guard like any click. A dialog that keeps coming back is left to the planner.
 */
export const interruptionHandler: PortalHandler = {
  id: 'interruption',
  async handle({ read, afterSignIn }, run) {
    const state = run.state;
    if (state.interruptionsDeclined >= MAX_INTERRUPTIONS) return PASS;
    const found = await findInterruption(read);
    if (!found) return PASS;
    const action: Action = { type: 'click', ref: found.control.ref };
    const verdict = checkAction(action, run.guardContext(read));
    if (verdict.verdict !== 'allow') return PASS;
    const effect = found.effect;
    if (effect.kind !== 'stays') {
      // Code declines by itself only when what the button sends is free; anything else is the clerk's to approve.
      const method = effect.kind === 'submits' ? effect.method : 'GET';
      const judged = run.o.gate.classify(method, effect.url);
      // Declining sends nothing the client would regret: a form that deletes, replaces or patches something (or says so by a method override) is never code's to press.
      const changes = !['GET', 'POST'].includes(method);
      if (judged.kind !== 'free' || changes) {
        state.interruptionsDeclined = MAX_INTERRUPTIONS;
        run.note('interruption', `"${found.title}" covers the page, but its "${found.control.name}" button ${effect.kind === 'submits' ? 'sends a form to' : 'goes to'} ${effect.url} (${judged.kind !== 'free' ? judged.reason : `a ${method}: it would change or delete something`}); code does not press it, the planner and the clerk decide`);
        return PASS;
      }
    }
    state.interruptionsDeclined += 1;
    const outcome = await run.asCode(`decline "${found.title}" with ${found.control.label}`, () => executeAction(run.o.page, read, action));
    run.note('interruption', outcome.status === 'done' ? `Declined "${found.title}" with "${found.control.name}"` : `Declining "${found.title}" failed: ${outcome.message ?? outcome.status}`);
    // The page under the dialog is read again next step; a sign-in that just happened still counts.
    state.justSignedIn = afterSignIn;
    return handled(`"${found.title}" covered the page: code declined it; the model is not asked.`, [{ action, element: found.control.label, verdict, outcome }]);
  },
};
