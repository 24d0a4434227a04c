import type { Action } from '../../../shared/action';
import { executeAction } from '../../act/executor';
import { checkAction } from '../../guard/guard';
import { findSessionWarning } from '../../portal/session-timeout';
import { handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** Warnings code answers per run; one that keeps coming back after that is the planner's. */
const MAX_WARNINGS = 10;

/**
 * A "your session will expire" warning over the page: code keeps the session with the warning's own
 * button, through the guard (and the commit gate, for whatever request it sends) like any click;
 * the step log records it and the model is not asked.
 */
const answered = new WeakMap<object, number>();

export const sessionTimeoutHandler: PortalHandler = {
  id: 'session-timeout',
  async handle({ read, afterSignIn }, run) {
    const count = answered.get(run) ?? 0;
    if (count >= MAX_WARNINGS) return PASS;
    const found = await findSessionWarning(read);
    if (!found) return PASS;
    const action: Action = { type: 'click', ref: found.control.ref };
    const verdict = checkAction(action, run.guardContext(read));
    if (verdict.verdict !== 'allow') return PASS;
    answered.set(run, count + 1);
    const outcome = await run.asCode(`keep the session with ${found.control.label}`, () => executeAction(run.o.page, read, action));
    run.note('session_timeout', outcome.status === 'done' ? `"${found.title}": code kept the session with "${found.control.name}"` : `Keeping the session ("${found.title}") failed: ${outcome.message ?? outcome.status}`);
    run.state.justSignedIn = afterSignIn;
    return handled(`"${found.title}" covered the page: code kept the session; the model is not asked.`, [{ action, element: found.control.label, verdict, outcome }]);
  },
};

