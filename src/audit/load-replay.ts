import { sha256Hex } from '../base/canonical-json';
import { OutcomeStatus } from '../shared/outcome';
import { StepRecord, ZERO_USAGE, type TokenUsage } from '../shared/run';
import { pageErrorsOf, requestsOf } from '../shared/step-log';
import { VerdictKind } from '../shared/verdict';
import { CHAIN_DEFINITION, CHAIN_V2_DEFINITION, verifyExport, type RunExport, type Store, type VerifyResult } from '../store';
import { describeAction } from './describe-action';
import {
  REPLAY_FORMAT,
  REPLAY_VERSION,
  type Replay,
  type ReplayAction,
  type ReplayApproval,
  type ReplayEntry,
  type ReplayProvenance,
  type ReplayScreenshot,
  type ReplayTotals,
  type StepIntegrity,
} from './replay';
import { PortalDeskError } from '../base/portal-desk-error';

/** A run's evidence: the replay to read, the verifiable export it came from, and the screenshot bytes that match their hashes. */
export interface RunEvidence {
  replay: Replay;
  export: RunExport;
  /** sha256 → PNG, only for screenshots whose bytes match their hash. */
  screenshots: ReadonlyMap<string, Uint8Array>;
}

export class RunNotFoundError extends PortalDeskError {}

export interface ReplayOptions {
  /** Stamped as `generatedAt` (tests pin it). */
  now?: () => Date;
}

/** The run as an auditor replays it, from the live store. Throws RunNotFoundError for an unknown id. */
export async function loadReplay(store: Store, runId: string, options: ReplayOptions = {}): Promise<Replay> {
  return (await loadRunEvidence(store, runId, options)).replay;
}

/**
 * Reads the run once (one export, in one store transaction) and verifies it with the store's own
 * `verifyRun`, which also checks what an export cannot (the step rows' query columns). A run that
 * grew between the two reads (it is still running) is verified on the export instead, so the
 * verdict always describes the steps shown.
 */
export async function loadRunEvidence(store: Store, runId: string, options: ReplayOptions = {}): Promise<RunEvidence> {
  if (!(await store.getRun(runId))) throw new RunNotFoundError(`No run "${runId}" in ${store.path}. Check the run id (it starts "run-") and the --db path.`);
  let verify = await store.verifyRun(runId);
  let exp: RunExport;
  try {
    exp = await store.exportRun(runId);
  } catch (err) {
    // A step row edited into something that is not JSON cannot be exported, so it cannot be replayed.
    if (verify.ok) throw err;
    throw new Error(`Run ${runId} cannot be replayed: its stored steps cannot be read back (${verify.problem}). verify names the damage; nothing was written.`, { cause: err });
  }
  if (!verify.ok || verify.steps !== exp.steps.length) verify = pickVerdict(verify, verifyExport(exp));
  return evidenceOf(exp, verify, { kind: 'store', path: store.path }, options);
}

/** The same, from an exported file already parsed (verifies it offline with `verifyExport`). */
export function evidenceFromExport(exp: RunExport, path?: string, options: ReplayOptions = {}): RunEvidence {
  return evidenceOf(exp, verifyExport(exp), { kind: 'export', path, exportedAt: exp.exportedAt }, options);
}

/** Between the live store's verdict and the export's, the one that breaks earlier (or the export's when both hold). */
function pickVerdict(live: VerifyResult, exported: VerifyResult): VerifyResult {
  if (live.ok) return exported;
  if (exported.ok) return live;
  return exported.brokenStep < live.brokenStep ? exported : live;
}

function evidenceOf(exp: RunExport, verify: VerifyResult, source: Replay['source'], options: ReplayOptions): RunEvidence {
  const screenshots = new Map<string, Uint8Array>();
  const shotInfo = new Map<string, ReplayScreenshot>();
  const screenshotOf = (sha256: string): ReplayScreenshot => {
    const known = shotInfo.get(sha256);
    if (known) return known;
    let info: ReplayScreenshot;
    if (!Object.hasOwn(exp.screenshots, sha256)) info = { sha256, state: 'missing' };
    else {
      const b64 = exp.screenshots[sha256];
      if (b64 === null || b64 === undefined) info = { sha256, state: 'purged' };
      else {
        const png = Buffer.from(b64, 'base64');
        if (sha256Hex(png) !== sha256) info = { sha256, state: 'altered', bytes: png.byteLength };
        else {
          screenshots.set(sha256, png);
          info = { sha256, state: 'present', bytes: png.byteLength, ...pngSize(png) };
        }
      }
    }
    shotInfo.set(sha256, info);
    return info;
  };

  const values = caseValues(exp.run.caseJson);
  const steps: ReplayEntry[] = exp.steps.map((raw, position) => {
    const chainHash = exp.chain.stepHashes[position] ?? null;
    const parsed = StepRecord.safeParse(raw);
    const index = parsed.success ? parsed.data.index : position;
    const integrity = integrityOf(index, verify);
    const problem = !verify.ok && integrity === 'broken' ? verify.problem : undefined;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        kind: 'unreadable',
        index,
        chainHash,
        integrity,
        problem: problem ?? `the stored step does not read as a step record (${issue?.path.join('.') || 'the step'}: ${issue?.message ?? 'invalid'})`,
      };
    }
    const s = parsed.data;
    const o = s.observation;
    const requests = requestsOf(s.events, s.requests);
    const actions: ReplayAction[] = s.actions.map((a, i) => ({
      index: i,
      summary: describeAction(a.action, a.element),
      action: a.action,
      ...(a.element !== undefined ? { element: a.element } : {}),
      verdict: a.verdict,
      ...(a.approval ? { approval: a.approval } : {}),
      ...(a.verdict.provenance ? { provenance: provenanceOf(a.verdict.provenance, values) } : {}),
      outcome: a.outcome,
    }));
    return {
      kind: 'step',
      index,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      durationMs: Math.max(0, Date.parse(s.endedAt) - Date.parse(s.startedAt)) || 0,
      chainHash,
      integrity,
      ...(problem ? { problem } : {}),
      page: {
        url: o.url,
        title: o.title,
        flowStep: o.flowStep,
        headings: o.headings,
        errors: o.errors,
        text: o.text,
        textTruncated: o.textTruncated,
        controls: o.controls.length,
        hasPasswordField: o.hasPasswordField,
      },
      observationHash: s.observationHash,
      screenshot: s.screenshotHash === null ? null : screenshotOf(s.screenshotHash),
      ...(s.afterScreenshotHash != null ? { after: screenshotOf(s.afterScreenshotHash) } : {}),
      ...(s.fullPageHash != null ? { fullPage: screenshotOf(s.fullPageHash) } : {}),
      reasoning: s.reasoning,
      model: s.model,
      actions,
      events: s.events,
      requests: requests.lines,
      requestsHidden: requests.hidden,
      pageErrors: pageErrorsOf(s.events),
    };
  });

  const { caseJson: _caseJson, ...run } = exp.run;
  const replay: Replay = {
    format: REPLAY_FORMAT,
    version: REPLAY_VERSION,
    generatedAt: (options.now ?? (() => new Date()))().toISOString(),
    source: dropUndefined(source),
    run,
    verify: { ...verify },
    // The rule shown is the one the verifier applied, not a text the file (or the database) carries.
    chain: { definition: exp.version === 2 ? CHAIN_V2_DEFINITION : CHAIN_DEFINITION, genesisHash: exp.chain.genesisHash, headHash: exp.chain.headHash },
    steps,
    approvals: approvalsOf(steps),
    totals: totalsOf(steps),
    auditTrail: exp.auditTrail.map(({ runId: _runId, ...event }) => event),
  };
  return { replay, export: exp, screenshots };
}

/** A break in a step (or its screenshot) marks that step; a break elsewhere leaves the steps after it unvouched-for, not broken. */
function integrityOf(index: number, verify: VerifyResult): StepIntegrity {
  if (verify.ok || index < verify.brokenStep) return 'verified';
  const inStep = verify.where === undefined || verify.where === 'step' || verify.where === 'screenshot';
  if (verify.where === 'run' || verify.where === 'head') return 'verified';
  return index === verify.brokenStep && inStep ? 'broken' : 'unverified';
}

interface CaseValues {
  fields: Record<string, unknown>;
  clerkValues: Record<string, unknown>;
}

/** The case file the run started with and the clerk's recorded answers, from the run's case JSON. */
function caseValues(caseJson: string): CaseValues {
  try {
    const parsed = JSON.parse(caseJson) as { caseFile?: { fields?: unknown }; clerkValues?: unknown } | null;
    const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
    return { fields: record(parsed?.caseFile?.fields), clerkValues: record(parsed?.clerkValues) };
  } catch {
    return { fields: {}, clerkValues: {} };
  }
}

/**
 * One-time codes are never shown. A clerk's answer is shown only when the run recorded it in its
 * case JSON, which the engine does for missing values and never for security answers.
 */
function provenanceOf(p: { source: 'case' | 'clerk' | 'otp'; field: string; format?: string; document?: ReplayProvenance['document'] }, values: CaseValues): ReplayProvenance {
  if (p.source === 'otp') return { source: p.source, field: p.field, withheld: true };
  if (p.document) return { source: p.source, field: p.field, withheld: false, document: p.document };
  if (p.format) return { ...provenanceOf({ source: p.source, field: p.field }, values), format: p.format };
  const pool = p.source === 'case' ? values.fields : values.clerkValues;
  const value = Object.hasOwn(pool, p.field) ? pool[p.field] : undefined;
  if (typeof value === 'string') return { source: p.source, field: p.field, value, withheld: false };
  return { source: p.source, field: p.field, withheld: p.source === 'clerk' };
}

function approvalsOf(steps: readonly ReplayEntry[]): ReplayApproval[] {
  const out: ReplayApproval[] = [];
  for (const step of steps) {
    if (step.kind !== 'step') continue;
    for (const a of step.actions) {
      if (!a.approval) continue;
      out.push({
        step: step.index,
        actionIndex: a.index,
        summary: a.summary,
        rule: a.verdict.rule,
        reason: a.verdict.reason,
        decision: a.approval.decision,
        by: a.approval.by,
        at: a.approval.at,
        ...(a.approval.note ? { note: a.approval.note } : {}),
      });
    }
  }
  return out;
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

function totalsOf(steps: readonly ReplayEntry[]): ReplayTotals {
  const totals: ReplayTotals = {
    steps: steps.length,
    actions: 0,
    verdicts: zeroCounts(VerdictKind.options),
    outcomes: zeroCounts(OutcomeStatus.options),
    approvals: 0,
    denials: 0,
    modelCalls: 0,
    usage: { ...ZERO_USAGE },
    screenshots: zeroCounts(['present', 'purged', 'missing', 'altered', 'none'] as const),
  };
  for (const step of steps) {
    if (step.kind !== 'step') continue;
    totals.screenshots[step.screenshot?.state ?? 'none'] += 1;
    if (step.model) {
      totals.modelCalls += 1;
      if (step.model.usage) totals.usage = addUsage(totals.usage, step.model.usage);
    }
    for (const a of step.actions) {
      totals.actions += 1;
      totals.verdicts[a.verdict.verdict] += 1;
      totals.outcomes[a.outcome.status] += 1;
      if (a.approval?.decision === 'approve') totals.approvals += 1;
      if (a.approval?.decision === 'deny') totals.denials += 1;
    }
  }
  return totals;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    // Summed in micro-dollars so a long run does not collect float dust.
    costUsd: Math.round((a.costUsd + b.costUsd) * 1e6) / 1e6,
  };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width?: number; height?: number } {
  if (png.byteLength < 24) return {};
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
