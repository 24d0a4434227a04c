import { z } from 'zod';

export const OutcomeStatus = z.enum(['done', 'unknown_ref', 'needs_approval', 'denied', 'blocked', 'error', 'skipped']);
export type OutcomeStatus = z.infer<typeof OutcomeStatus>;

/** What happened when the executor ran (or did not run) one action. */
export const Outcome = z.object({
  status: OutcomeStatus,
  message: z.string().optional(),
  ms: z.number().nonnegative(),
});
export type Outcome = z.infer<typeof Outcome>;
