import { z } from 'zod';

/**
 * How long a run may go on. Reaching the step cap ends the run `failed`, the time limit
 * `interrupted` (resumable, naming what the run was doing): never a claimed success. The time limit counts the agent's working time only: a wait for the clerk (an
 * approval card, a question, a take-over) is not in it. A wait for an answer has its own expiry
 * (`clerkWaitMs`), with a notice before it runs out; an expired wait ends the run `interrupted`,
 * resumable, with nothing sent on the clerk's behalf. `maxSignIns`: how many times code signs in
 * within one run (the first sign-in and every sign-in after the portal ended the session); one
 * more ends the run `failed` ("check the stored login"). The default, 4, stops a run whose login
 * never holds; a test that ends the session on purpose after every step raises it.
 */
export const RunLimits = z.strictObject({
  maxSteps: z.number().int().min(1).max(100).default(40),
  timeLimitMs: z.number().int().min(1_000).max(3_600_000).default(400_000),
  clerkWaitMs: z.number().int().min(1_000).max(86_400_000).default(1_800_000),
  maxSignIns: z.number().int().min(1).max(100).default(4),
});
export type RunLimits = z.infer<typeof RunLimits>;
export const DEFAULT_LIMITS: RunLimits = { maxSteps: 40, timeLimitMs: 400_000, clerkWaitMs: 1_800_000, maxSignIns: 4 };

/** How long before a wait for the clerk runs out the notice is given: a fifth of the wait, at most five minutes. */
export function clerkWaitNoticeMs(waitMs: number): number {
  return Math.min(300_000, Math.round(waitMs / 5));
}
