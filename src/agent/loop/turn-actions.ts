import { Action, hasRef, MAX_ACTIONS_PER_TURN } from '../../shared/action';
import type { StepAction } from '../../shared/run';
import type { PageRead } from '../observe/page-read';

/**
 * The planner's actions checked against the action schema, whatever the planner: a malformed
 * one is recorded as a blocked step action (never run, never a store error).
 */
export function validActions(turn: unknown): { valid: Action[]; malformed: StepAction[] } {
  const listed = turn && typeof turn === 'object' && Array.isArray((turn as { actions?: unknown }).actions) ? ((turn as { actions: unknown[] }).actions) : [turn];
  const valid: Action[] = [];
  const malformed: StepAction[] = [];
  for (const candidate of listed) {
    const parsed = Action.safeParse(candidate);
    if (parsed.success) {
      valid.push(candidate as Action);
      continue;
    }
    let shown: string;
    try {
      shown = JSON.stringify(candidate) ?? String(candidate);
    } catch {
      shown = String(candidate);
    }
    const problem = parsed.error.issues[0];
    const reason = `The planner proposed a malformed action (${problem ? `${problem.path.join('.') || 'action'}: ${problem.message}` : 'invalid'}): ${shown.slice(0, 200)}`;
    malformed.push({
      action: { type: 'fail', reason: reason.slice(0, 500) },
      verdict: { verdict: 'block', rule: 'schema', reason: 'The action does not match the action schema; nothing was done.' },
      outcome: { status: 'blocked', message: 'not run: malformed', ms: 0 },
    });
  }
  if (valid.length > MAX_ACTIONS_PER_TURN) {
    for (const extra of valid.splice(MAX_ACTIONS_PER_TURN)) {
      malformed.push({ action: extra, verdict: { verdict: 'block', rule: 'schema', reason: `More than ${MAX_ACTIONS_PER_TURN} actions in one turn; this one was not run.` }, outcome: { status: 'blocked', message: 'not run: over the action cap', ms: 0 } });
    }
  }
  return { valid, malformed };
}

/** An action of the turn after one that did not complete: recorded, never run. */
export function notReached(action: Action, read: PageRead): StepAction {
  return {
    action,
    element: hasRef(action) ? read.control(action.ref)?.label : undefined,
    verdict: { verdict: 'allow', rule: 'not-reached', reason: 'an earlier action in the turn did not complete' },
    outcome: { status: 'skipped', ms: 0 },
  };
}
