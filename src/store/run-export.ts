import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../base/canonical-json';
import type { RunRecord, StepRecord } from '../shared/run';
import { genesisHash, verifyChain, type ScreenshotState, type StoredStep, type VerifyResult } from './chain';
import { anchorHead, claimedRun, verifyChainV2, type ChainedEvent, type ChainRecordRef, type StoredEvent } from './chain-v2';
import type { RunEvent } from './records';
import { PortalDeskError } from '../base/portal-desk-error';

export const RUN_EXPORT_FORMAT = 'portal-desk.run-export' as const;
/** The version written: 2 (chain format 2). Files of version 1 (chain format 1) are still read and verified. */
export const RUN_EXPORT_VERSION = 2 as const;

/**
 * A run as one self-contained JSON document an auditor can verify offline, with this module or
 * with any language: recompute `chain.definition` over `steps` (canonical JSON: keys sorted, no
 * whitespace, non-ASCII unescaped, as JavaScript's JSON.stringify writes it) and compare with
 * `chain.stepHashes` and `chain.headHash`, then each screenshot's sha256 with its key.
 */
export interface RunExportV1 {
  format: typeof RUN_EXPORT_FORMAT;
  version: 1;
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

/**
 * Chain format 2 (see chain-v2.ts): the genesis record, each step's place in the run's record
 * log, and the audit trail as chained (each event with its pos, the values it set and its hash).
 * A verifier in another language recomputes `chain.definition` over the genesis, the steps and
 * the events merged in pos order, then checks the run's fields against the chain's last values.
 */
export interface RunExportV2 {
  format: typeof RUN_EXPORT_FORMAT;
  version: 2;
  exportedAt: string;
  run: RunRecord;
  chain: {
    version: 2;
    definition: string;
    genesis: Record<string, unknown> | null;
    genesisHash: string;
    /** stepHashes[i] is step i's hash as recorded, stepPositions[i] its place in the record log. */
    stepHashes: string[];
    stepPositions: (number | null)[];
    recordCount: number;
    headHash: string | null;
  };
  steps: StepRecord[];
  screenshots: Record<string, string | null>;
  /** The run-level events, each a chained record (pos, set, hash). */
  auditTrail: RunEvent[];
}

export type RunExport = RunExportV1 | RunExportV2;

/** The export's outer shape. Steps stay `unknown` here so a tampered step is named by verification, not refused as a format error. */
const Envelope = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(1),
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
    genesisHash: z.string().optional(),
    stepHashes: z.array(z.string()),
    headHash: z.string().nullable(),
  }),
  steps: z.array(z.unknown()),
  screenshots: z.record(z.string(), z.string().nullable()),
});

export class RunExportFormatError extends PortalDeskError {}

interface VerifyExportOptions {
  /**
   * The head hash known from elsewhere (the live database, a printed receipt, the head log): the
   * export must end there, or go on past it only with purges after the run's final outcome.
   */
  expectedHeadHash?: string;
  /** With expectedHeadHash: the number of records the chain had when that head was kept (a head-log line gives it). */
  expectedRecords?: number;
  /** Receives each verified record in order. */
  onRecord?: (record: ChainRecordRef) => void;
}

/**
 * Verifies an export the way `Store.verifyRun` verifies the database, with the same answers.
 * Throws RunExportFormatError when the object is not a run export at all.
 */
export function verifyExport(input: unknown, options: VerifyExportOptions = {}): VerifyResult {
  const records: ChainRecordRef[] = [];
  const result = verifyExportChain(input, (r) => {
    records.push(r);
    options.onRecord?.(r);
  });
  if (result.ok && options.expectedHeadHash !== undefined && result.headHash !== options.expectedHeadHash) {
    const anchored = anchorHead(records, options.expectedHeadHash, options.expectedRecords);
    if (anchored.ok && anchored.after.length > 0 && anchored.after.every((r) => r.type === 'purged')) return result;
    return {
      ok: false,
      format: result.format,
      brokenStep: result.steps,
      where: 'head',
      field: 'headHash',
      problem: anchored.ok
        ? `the export's chain goes ${anchored.after.length} record(s) past the expected head ${options.expectedHeadHash.slice(0, 12)} (to ${String(result.headHash).slice(0, 12)}): it is not the run as recorded then`
        : `the export's chain ends at ${String(result.headHash).slice(0, 12)}, not at the expected head ${options.expectedHeadHash.slice(0, 12)}: ${anchored.problem}`,
    };
  }
  return result;
}

function verifyExportChain(input: unknown, onRecord: (r: ChainRecordRef) => void): VerifyResult {
  if (input && typeof input === 'object' && (input as { version?: unknown }).version === 2) return verifyExportV2(input, onRecord);
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
  const result = verifyChain({ identity: exp.run, stepCount: exp.run.stepCount, headHash: runHead, steps, screenshot: screenshotIn(exp.screenshots) });
  if (!result.ok) return result;
  // The genesis hash the file states is what a report prints as the chain's start.
  const start = genesisHash(exp.run);
  if (exp.chain.genesisHash !== undefined && exp.chain.genesisHash !== start) {
    return { ok: false, brokenStep: 0, where: 'genesis', field: 'chain.genesisHash', problem: `the export states genesis hash ${exp.chain.genesisHash.slice(0, 12)}, but the run's identity hashes to ${start.slice(0, 12)}: the stated hash was changed` };
  }
  // Format 1 chains only steps: their hashes are its records.
  exp.chain.stepHashes.forEach((hash, pos) => onRecord({ pos, hash, kind: 'step', type: 'step' }));
  return result;
}

const Usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  costUsd: z.number(),
});

/** Version 2's outer shape: the run's fields the chain checks, as the file holds them. */
const EnvelopeV2 = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(2),
  run: z.object({
    id: z.string(),
    caseId: z.string(),
    clientId: z.string(),
    portal: z.string(),
    task: z.string(),
    startedAt: z.string(),
    planner: z.string(),
    approveMode: z.string(),
    layout: z.string().optional(),
    model: z.string().optional(),
    status: z.string(),
    reason: z.string().optional(),
    applicationNumber: z.string().optional(),
    endedAt: z.string().optional(),
    caseJson: z.string(),
    stepCount: z.number().int().nonnegative(),
    usage: Usage,
    headHash: z.string().optional(),
  }),
  chain: z.object({
    genesis: z.unknown(),
    genesisHash: z.string().optional(),
    stepHashes: z.array(z.string()),
    stepPositions: z.array(z.number().int().nullable()),
    recordCount: z.number().int().nonnegative(),
    headHash: z.string().nullable(),
  }),
  steps: z.array(z.unknown()),
  screenshots: z.record(z.string(), z.string().nullable()),
  auditTrail: z.array(z.unknown()),
});

function verifyExportV2(input: unknown, onRecord: (r: ChainRecordRef) => void): VerifyResult {
  const parsed = EnvelopeV2.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunExportFormatError(`Not a Portal Desk run export (version 2): ${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'invalid'}`);
  }
  const exp = parsed.data;
  const r = exp.run;
  if ((r.headHash ?? null) !== exp.chain.headHash) {
    return { ok: false, format: 2, brokenStep: exp.steps.length, where: 'head', field: 'headHash', problem: "the run's head hash disagrees with the chain's head hash in the export" };
  }
  const steps = exp.steps.map((record, position) => ({
    index: indexOf(record, position),
    pos: exp.chain.stepPositions[position] ?? null,
    json: canonicalJson(record),
    hash: exp.chain.stepHashes[position] ?? '',
  }));
  const result = verifyChainV2({
    genesis: exp.chain.genesis,
    run: claimedRun(r, exp.chain.recordCount),
    steps,
    events: exp.auditTrail.map(exportedEvent),
    screenshot: screenshotIn(exp.screenshots),
    onRecord,
  });
  if (!result.ok) return result;
  // The genesis hash the file states is what a report prints as the chain's start: it must be the genesis's own.
  const genesis = exp.chain.genesis;
  if (genesis && typeof genesis === 'object' && exp.chain.genesisHash !== undefined) {
    const computed = sha256Hex(canonicalJson(genesis));
    if (exp.chain.genesisHash !== computed) {
      return {
        ok: false,
        format: 2,
        brokenStep: 0,
        where: 'genesis',
        field: 'chain.genesisHash',
        problem: `the export states genesis hash ${exp.chain.genesisHash.slice(0, 12)}, but its genesis record hashes to ${computed.slice(0, 12)}: the stated hash was changed`,
      };
    }
  }
  return result;
}

/** An exported audit-trail entry as the chain reads it: everything but `seq` and `hash` is hashed. */
function exportedEvent(raw: unknown): StoredEvent {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const type = typeof o.type === 'string' ? o.type : '(no type)';
  const pos = typeof o.pos === 'number' && Number.isInteger(o.pos) ? o.pos : null;
  const { seq: _seq, hash, ...rest } = o;
  return { event: rest as unknown as ChainedEvent, hash: typeof hash === 'string' ? hash : null, pos, type };
}

/** A screenshot as an export holds it: base64 bytes, null once purged, or no key at all. */
function screenshotIn(screenshots: Record<string, string | null>): (sha256: string) => ScreenshotState {
  return (sha256) => {
    if (!Object.hasOwn(screenshots, sha256)) return { state: 'missing' };
    const b64 = screenshots[sha256];
    return b64 === null || b64 === undefined ? { state: 'purged' } : { state: 'present', png: Buffer.from(b64, 'base64') };
  };
}

function indexOf(record: unknown, position: number): number {
  if (record && typeof record === 'object' && 'index' in record) {
    const i = (record as { index: unknown }).index;
    if (typeof i === 'number' && Number.isInteger(i)) return i;
  }
  return position;
}
