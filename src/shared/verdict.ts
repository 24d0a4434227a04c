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
  /** For an upload: the file attached, as the guard read it (its name, size and sha256). */
  document: z.object({ file: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string() }).optional(),
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
