import { z } from 'zod';
import { canonicalJson } from '../base/canonical-json';
import type { RunRecord, StepRecord } from '../shared/run';
import { verifyChain, type ScreenshotState, type StoredStep, type VerifyResult } from './chain';
import type { RunEvent } from './records';

export const RUN_EXPORT_FORMAT = 'portal-desk.run-export' as const;
export const RUN_EXPORT_VERSION = 1 as const;

/**
 * A run as one self-contained JSON document an auditor can verify offline, with this module or
 * with any language: recompute `chain.definition` over `steps` (canonical JSON: keys sorted, no
 * whitespace, non-ASCII unescaped, as JavaScript's JSON.stringify writes it) and compare with
 * `chain.stepHashes` and `chain.headHash`, then each screenshot's sha256 with its key.
 */
export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  version: typeof RUN_EXPORT_VERSION;
  exportedAt: string;
  run: RunRecord;
  chain: {
    definition: string;
    genesisHash: string;
    /** stepHashes[i] is step i's hash as recorded. */
    stepHashes: string[];
    headHash: string | null;
  };
  steps: StepRecord[];
  /** sha256 → PNG as base64; null where retention purged the bytes (the hash stays in the chain). */
  screenshots: Record<string, string | null>;
  /** Run-level events (created, status changes...). Informational: not covered by the chain. */
  auditTrail: RunEvent[];
}

/** The export's outer shape. Steps stay `unknown` here so a tampered step is named by verification, not refused as a format error. */
const Envelope = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(RUN_EXPORT_VERSION),
  run: z.object({
    id: z.string(),
    caseId: z.string(),
    clientId: z.string(),
    portal: z.string(),
    task: z.string(),
    startedAt: z.string(),
    stepCount: z.number().int().nonnegative(),
    headHash: z.string().optional(),
  }),
  chain: z.object({
    stepHashes: z.array(z.string()),
    headHash: z.string().nullable(),
  }),
  steps: z.array(z.unknown()),
  screenshots: z.record(z.string(), z.string().nullable()),
});

export class RunExportFormatError extends Error {
  override readonly name = 'RunExportFormatError';
}

export interface VerifyExportOptions {
  /** The head hash known from elsewhere (the live database, a printed receipt): the export must end there. */
  expectedHeadHash?: string;
}

/**
 * Verifies an export the way `Store.verifyRun` verifies the database, with the same answers.
 * Throws RunExportFormatError when the object is not a run export at all.
 */
export function verifyExport(input: unknown, options: VerifyExportOptions = {}): VerifyResult {
  const parsed = Envelope.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunExportFormatError(`Not a Portal Desk run export: ${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'invalid'}`);
  }
  const exp = parsed.data;
  const runHead = exp.run.headHash ?? null;
  if (runHead !== exp.chain.headHash) {
    return { ok: false, brokenStep: exp.steps.length, problem: `the run's head hash disagrees with the chain's head hash in the export` };
  }
  const steps: StoredStep[] = exp.steps.map((record, position) => ({
    index: indexOf(record, position),
    json: canonicalJson(record),
    hash: exp.chain.stepHashes[position] ?? '',
  }));
  const screenshot = (sha256: string): ScreenshotState => {
    if (!Object.hasOwn(exp.screenshots, sha256)) return { state: 'missing' };
    const b64 = exp.screenshots[sha256];
    return b64 === null || b64 === undefined ? { state: 'purged' } : { state: 'present', png: Buffer.from(b64, 'base64') };
  };
  const result = verifyChain({ identity: exp.run, stepCount: exp.run.stepCount, headHash: runHead, steps, screenshot });
  if (result.ok && options.expectedHeadHash !== undefined && result.headHash !== options.expectedHeadHash) {
    return {
      ok: false,
      brokenStep: result.steps,
      problem: `the export's chain ends at ${String(result.headHash).slice(0, 12)}, not at the expected head ${options.expectedHeadHash.slice(0, 12)}: it is not the run as recorded`,
    };
  }
  return result;
}

function indexOf(record: unknown, position: number): number {
  if (record && typeof record === 'object' && 'index' in record) {
    const i = (record as { index: unknown }).index;
    if (typeof i === 'number' && Number.isInteger(i)) return i;
  }
  return position;
}
