import type { Action } from '../../../shared/action';
import type { GuardRuleName, Provenance, Verdict, VerdictRule } from '../../../shared/verdict';
import type { GuardContext } from '../guard-context';

/**
 * One concern of the action guard. A rule looks at one proposed action and the context code
 * built (never at anything the model wrote besides the action itself) and answers with a verdict,
 * or `undefined` when the action is none of its business. `guard.ts` composes the answers.
 */
export interface GuardRule {
  /** Names the rule in verdicts, logs and the audit trail, e.g. "hosts". */
  readonly id: GuardRuleName;
  check(action: Action, ctx: GuardContext): Verdict | undefined;
}

export function allow(rule: VerdictRule, reason: string, provenance?: Provenance): Verdict {
  return provenance ? { verdict: 'allow', rule, reason, provenance } : { verdict: 'allow', rule, reason };
}

export function needsApproval(rule: VerdictRule, reason: string): Verdict {
  return { verdict: 'needs_approval', rule, reason };
}

export function block(rule: VerdictRule, reason: string): Verdict {
  return { verdict: 'block', rule, reason };
}
