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

/**
 * What a fill's read-back says when the box did not keep the text typed into it: cut or changed
 * as it was typed, or dropped or changed once it was left or the page settled. The rules planner
 * takes such an outcome as the box refusing that way of writing the value (and only such an
 * outcome: a timeout or a disabled box is not a refusal of the format).
 */
export const BOX_CHANGED_TEXT = 'the box changed or cut the value';
export const PAGE_CHANGED_TEXT = 'the page dropped or changed the value';

export function isReadBackRefusal(outcome: Outcome): boolean {
  return outcome.status === 'error' && !!outcome.message && (outcome.message.includes(`(${BOX_CHANGED_TEXT})`) || outcome.message.includes(`(${PAGE_CHANGED_TEXT})`));
}
