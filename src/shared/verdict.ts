import { z } from 'zod';

export const VerdictKind = z.enum(['allow', 'needs_approval', 'block']);
export type VerdictKind = z.infer<typeof VerdictKind>;

/** Where a typed or selected value came from. */
export const Provenance = z.object({
  source: z.enum(['case', 'clerk', 'otp']),
  /** The case field (or, for an upload, the case document's name). */
  field: z.string(),
  /** The format code wrote the value in (see value-format.ts), when the fill named one. */
  format: z.string().optional(),
  /** The person's block of the page the value went into ("Partner 2", ordinal 2), where the page repeats questions per person. */
  section: z.object({ name: z.string(), ordinal: z.number().int().positive() }).optional(),
  /** For a select from a look-up's results: the option chosen, whose lines the guard matched to the case's values. */
  option: z.string().optional(),
  /** For an upload: the file attached, as the guard read it (its name, size and sha256). */
  document: z.object({ file: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string() }).optional(),
});
export type Provenance = z.infer<typeof Provenance>;

/** The guard's rules, one a file in `src/agent/guard/rules` (each `GuardRule.id`). */
export const GuardRuleName = z.enum(['read-only', 'unknown-ref', 'hosts', 'off-host-link', 'off-host-frame', 'provenance', 'right-person', 'clear', 'upload', 'risky-control', 'declaration', 'final-review']);
export type GuardRuleName = z.infer<typeof GuardRuleName>;

/** Why the commit gate holds a request for the clerk (`src/agent/guard/request-class.ts`). */
export const CommitRuleName = z.enum([
  'submit-path',
  'payment-path',
  'risky-address',
  'final-review-post',
  'undeclared-post',
  'unmapped-request',
  'other-shape',
  'get-sends-data',
  'unknown-get-after-save',
  'gated-action',
]);
export type CommitRuleName = z.infer<typeof CommitRuleName>;

/**
 * Every rule a verdict can name: the guard's rules; what `guard.ts` itself answers (`schema` for a
 * malformed action, `ask`/`done`/`fail`/`keys` for actions no rule objects to, `guard` otherwise);
 * the loop's `not-reached` (an action after one that did not complete) and `schema` (a malformed
 * action from the planner); the commit gate's rule for a request it holds (`commit-gate:<rule>`).
 * `proof` and `end` were the loop's names for `done` and `fail` before the guard wrote every
 * verdict: older runs in a store carry them, new runs never do.
 */
export const VerdictRule = z.enum([
  ...GuardRuleName.options,
  'schema',
  'ask',
  'done',
  'fail',
  'keys',
  'guard',
  'not-reached',
  'commit-gate:submit-path',
  'commit-gate:risky-address',
  'commit-gate:final-review-post',
  'commit-gate:undeclared-post',
  'commit-gate:payment-path',
  'commit-gate:unmapped-request',
  'commit-gate:other-shape',
  'commit-gate:get-sends-data',
  'commit-gate:unknown-get-after-save',
  'commit-gate:gated-action',
  'proof',
  'end',
]);
export type VerdictRule = z.infer<typeof VerdictRule>;

/** The verdict rule that names a request the commit gate holds. */
export function commitGateRule(rule: CommitRuleName): VerdictRule {
  return `commit-gate:${rule}`;
}

/** The guard's answer for one action, with the rule that decided it. */
export const Verdict = z.object({
  verdict: VerdictKind,
  /** The rule that decided (e.g. "hosts", "provenance", "risky-control", "final-review"). */
  rule: VerdictRule,
  reason: z.string(),
  provenance: Provenance.optional(),
});
export type Verdict = z.infer<typeof Verdict>;
