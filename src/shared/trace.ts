import { z } from 'zod';

/**
 * What became of a run's optional Playwright trace (`run --trace`), as the run's chained outcome
 * record keeps it: kept beside the store (its name there, its sha256 and size, how many files the
 * scan read), or dropped with the reason (it held a secret of the run, or could not be read whole).
 */
export const TraceRecord = z.union([
  z.strictObject({ kept: z.literal(true), file: z.string(), sha256: z.string(), bytes: z.number().int().nonnegative(), files: z.number().int().nonnegative() }),
  z.strictObject({ kept: z.literal(false), reason: z.string() }),
]);
export type TraceRecord = z.infer<typeof TraceRecord>;

/** Keeps a finished trace zip, or drops it: filled in by the composition roots (src/audit/trace-file.ts). */
export interface TraceKeeper {
  keep(zipPath: string, runId: string, secrets: readonly string[]): TraceRecord;
}
