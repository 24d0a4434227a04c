import { z } from 'zod';

/** How long a run may go on. Reaching either limit ends the run `failed`: never a claimed success. */
export const RunLimits = z.strictObject({
  maxSteps: z.number().int().min(1).max(100).default(40),
  timeLimitMs: z.number().int().min(1_000).max(3_600_000).default(400_000),
});
export type RunLimits = z.infer<typeof RunLimits>;
export const DEFAULT_LIMITS: RunLimits = { maxSteps: 40, timeLimitMs: 400_000 };
