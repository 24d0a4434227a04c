import { z } from 'zod';

export const VerdictKind = z.enum(['allow', 'needs_approval', 'block']);
export type VerdictKind = z.infer<typeof VerdictKind>;

/** Where a typed or selected value came from. */
export const Provenance = z.object({
  source: z.enum(['case', 'clerk', 'otp']),
  field: z.string(),
});
export type Provenance = z.infer<typeof Provenance>;

/** The guard's answer for one action, with the rule that decided it. */
export const Verdict = z.object({
  verdict: VerdictKind,
  /** The rule that decided (e.g. "hosts", "provenance", "risky-control", "final-review"). */
  rule: z.string(),
  reason: z.string(),
  provenance: Provenance.optional(),
});
export type Verdict = z.infer<typeof Verdict>;
