import { Action } from '../../shared/action';
import type { Verdict, VerdictKind } from '../../shared/verdict';
import type { GuardContext } from './guard-context';
import { clearRule } from './rules/clear';
import { declarationRule } from './rules/declarations';
import { finalReviewRule } from './rules/final-review';
import { hostsRule } from './rules/hosts';
import { offHostFrameRule } from './rules/off-host-frame';
import { offHostLinkRule } from './rules/off-host-link';
import { provenanceRule } from './rules/provenance';
import { readOnlyRule } from './rules/read-only';
import { rightPersonRule } from './rules/right-person';
import { riskyControlRule } from './rules/risky-control';
import { allow, block, type GuardRule } from './rules/rule';
import { unknownRefRule } from './rules/unknown-ref';
import { uploadRule } from './rules/upload';

export { resolveValue } from './rules/provenance';
export { resolveDocument } from './rules/upload';

/**
 * The action guard: code, not the model, decides what runs. Every rule looks at the action;
 * `block` beats `needs_approval` beats `allow`, and among equals the earlier rule in this list
 * decides (so its reason is the one the clerk reads).
 */
export const GUARD_RULES: readonly GuardRule[] = [
  readOnlyRule,
  unknownRefRule,
  hostsRule,
  offHostLinkRule,
  offHostFrameRule,
  provenanceRule,
  rightPersonRule,
  clearRule,
  uploadRule,
  riskyControlRule,
  declarationRule,
  finalReviewRule,
];

const SEVERITY: Readonly<Record<VerdictKind, number>> = { allow: 0, needs_approval: 1, block: 2 };

/** What an action no rule objected to is allowed as, per action type. */
function noObjection(action: Action): Verdict {
  switch (action.type) {
    case 'ask':
      return allow('ask', 'Questions go to the clerk.');
    case 'done':
      return allow('done', 'The loop checks the proof against the page before the run counts as done.');
    case 'fail':
      return allow('fail', 'The planner gives up; the run ends as failed.');
    case 'press':
      return allow('keys', `${action.key} only moves focus or closes a menu.`);
    case 'click':
      return allow('risky-control', 'No risky word, not gated, not on a final-review page, and it does not lead off the portal.');
    case 'check':
      return allow('declaration', action.checked ? 'An ordinary choice, not a declaration.' : 'Unticking states nothing.');
    default:
      return allow('guard', 'No rule objected.');
  }
}

/**
 * The guard's verdict on one proposed action. Pure: reads only the action and the context.
 * A malformed action, or a rule that throws, is blocked: the guard fails closed.
 */
export function checkAction(action: Action, ctx: GuardContext): Verdict {
  const parsed = Action.safeParse(action);
  if (!parsed.success) {
    return block('schema', `The action is malformed (${parsed.error.issues[0]?.message ?? 'invalid'}); nothing was done.`);
  }
  const verdicts: Verdict[] = [];
  for (const rule of GUARD_RULES) {
    try {
      const verdict = rule.check(parsed.data, ctx);
      if (verdict) verdicts.push(verdict);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      verdicts.push(block(rule.id, `The ${rule.id} check could not judge this action (${message}); nothing was done.`));
    }
  }
  let decided: Verdict | undefined;
  for (const verdict of verdicts) {
    if (!decided || SEVERITY[verdict.verdict] > SEVERITY[decided.verdict]) decided = verdict;
  }
  decided ??= noObjection(parsed.data);
  const provenance = verdicts.find((v) => v.provenance)?.provenance;
  if (provenance && decided.verdict !== 'block' && !decided.provenance) return { ...decided, provenance };
  return decided;
}
