import { z } from 'zod';
import { Action } from '../shared/action';
import { PageError } from '../shared/observation';
import { Outcome, OutcomeStatus } from '../shared/outcome';
import { Approval, ModelCall, RunRecord, RunStatus, StepEvent, TokenUsage } from '../shared/run';
import { Verdict, VerdictKind } from '../shared/verdict';

/**
 * A logged run as an auditor replays it: every step's evidence in order, with the chain's
 * verdict on whether anyone edited it. One JSON-serialisable shape for the console, the CLI
 * (`replay --json`) and the HTML report; built by `loadReplay` / `replayFromExport`.
 *
 * Nothing here is new evidence: it is the recorded run (step records, run record, audit trail)
 * rearranged for reading, plus what verification found. Screenshot BYTES are not in it (they
 * ride separately to the HTML renderer); their hashes and states are.
 */

export const REPLAY_FORMAT = 'portal-desk.replay' as const;
export const REPLAY_VERSION = 1 as const;

/** The chain's verdict, as the store's `verifyRun` / `verifyExport` gave it. */
const ReplayVerify = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** 1: the older chain (identity and steps only); 2: every fact the report shows. */
    format: z.union([z.literal(1), z.literal(2)]),
    steps: z.number().int().nonnegative(),
    events: z.number().int().nonnegative().optional(),
    records: z.number().int().nonnegative().optional(),
    headHash: z.string().nullable(),
    checkedScreenshots: z.number().int().nonnegative(),
    purgedScreenshots: z.number().int().nonnegative(),
    /** What the chain covers, and what an intact chain cannot prove. */
    covers: z.array(z.string()),
    cannot: z.string(),
  }),
  z.object({
    ok: z.literal(false),
    format: z.union([z.literal(1), z.literal(2)]).optional(),
    brokenStep: z.number().int().nonnegative(),
    problem: z.string(),
    where: z.enum(['genesis', 'step', 'event', 'screenshot', 'run', 'head']).optional(),
    field: z.string().optional(),
  }),
]);
type ReplayVerify = z.infer<typeof ReplayVerify>;

/**
 * A screenshot as the evidence holds it. `present`: the bytes are there and match their hash;
 * `purged`: retention dropped the bytes (the hash stays in the chain); `missing`: no record of
 * it at all; `altered`: bytes are there but are not the ones the chain names.
 */
const ScreenshotState = z.enum(['present', 'purged', 'missing', 'altered']);
type ScreenshotState = z.infer<typeof ScreenshotState>;

export const ReplayScreenshot = z.object({
  sha256: z.string(),
  state: ScreenshotState,
  /** PNG size and pixel dimensions where the bytes are present. */
  bytes: z.number().int().nonnegative().optional(),
  width: z.number().int().nonnegative().optional(),
  height: z.number().int().nonnegative().optional(),
});
export type ReplayScreenshot = z.infer<typeof ReplayScreenshot>;

/**
 * Where a typed or selected value came from. `value` is the text from the case file or the
 * clerk's recorded answer; it is never given for one-time codes or security answers (`withheld`).
 */
export const ReplayProvenance = z.object({
  source: z.enum(['case', 'clerk', 'otp']),
  field: z.string(),
  value: z.string().optional(),
  withheld: z.boolean(),
  /** The format code wrote the value in, when the fill named one. */
  format: z.string().optional(),
  /** An uploaded case document: its file, size and sha256 as attached. */
  document: z.object({ file: z.string(), bytes: z.number(), sha256: z.string() }).optional(),
});
export type ReplayProvenance = z.infer<typeof ReplayProvenance>;

export const ReplayAction = z.object({
  /** Position in the step's turn. */
  index: z.number().int().nonnegative(),
  /** One line for people: `fill textbox "Owner name" from case field owner_name`. */
  summary: z.string(),
  action: Action,
  element: z.string().optional(),
  verdict: Verdict,
  approval: Approval.optional(),
  provenance: ReplayProvenance.optional(),
  outcome: Outcome,
});
export type ReplayAction = z.infer<typeof ReplayAction>;

/** Where the chain stands on one step. `unverified`: an earlier step broke, so the chain cannot vouch for this one. */
export const StepIntegrity = z.enum(['verified', 'broken', 'unverified']);
export type StepIntegrity = z.infer<typeof StepIntegrity>;

const ReplayPage = z.object({
  url: z.string(),
  title: z.string(),
  flowStep: z.string().nullable(),
  headings: z.array(z.string()),
  errors: z.array(PageError),
  /** Visible page text as read (untrusted: render it as text, never as markup). */
  text: z.string(),
  textTruncated: z.boolean(),
  controls: z.number().int().nonnegative(),
  hasPasswordField: z.boolean(),
});
type ReplayPage = z.infer<typeof ReplayPage>;

const ReplayRequest = z.object({
  at: z.string(),
  outcome: z.enum(['sent', 'refused', 'denied']),
  by: z.enum(['egress lock', 'network lock', 'commit gate']),
  method: z.string().nullable(),
  url: z.string().nullable(),
  rule: z.string(),
  message: z.string(),
  type: z.string(),
  /** Identical requests the line stands for (the egress lock's log counts repeats); 1 when absent. */
  count: z.number().int().positive().optional(),
});
type ReplayRequest = z.infer<typeof ReplayRequest>;

export const ReplayStep = z.object({
  kind: z.literal('step'),
  index: z.number().int().nonnegative(),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number().nonnegative(),
  /** This step's hash in the run's chain, as recorded. */
  chainHash: z.string().nullable(),
  integrity: StepIntegrity,
  /** What verification found wrong with this step, when it is the broken one. */
  problem: z.string().optional(),
  page: ReplayPage,
  observationHash: z.string(),
  screenshot: ReplayScreenshot.nullable(),
  /** After the step's actions ran and the page settled; absent on steps recorded before schema 5. */
  after: ReplayScreenshot.nullable().optional(),
  /** The whole page, at a gated step. */
  fullPage: ReplayScreenshot.nullable().optional(),
  reasoning: z.string(),
  model: ModelCall.nullable(),
  actions: z.array(ReplayAction),
  events: z.array(StepEvent),
  /** The requests pane: what the egress lock, network lock and commit gate let through or refused, with the rule (browser noise counted in requestsHidden). */
  requests: z.array(ReplayRequest).optional(),
  requestsHidden: z.number().int().nonnegative().optional(),
  /** The page errors pane: script and console errors, failed loads. */
  pageErrors: z.array(z.object({ kind: z.string(), message: z.string(), at: z.string() })).optional(),
});
export type ReplayStep = z.infer<typeof ReplayStep>;

/** A stored step that no longer reads as a step record (its JSON was edited into another shape). */
export const UnreadableStep = z.object({
  kind: z.literal('unreadable'),
  index: z.number().int().nonnegative(),
  chainHash: z.string().nullable(),
  integrity: StepIntegrity,
  problem: z.string(),
});
export type UnreadableStep = z.infer<typeof UnreadableStep>;

export const ReplayEntry = z.discriminatedUnion('kind', [ReplayStep, UnreadableStep]);
export type ReplayEntry = z.infer<typeof ReplayEntry>;

/** One approval decision, in step and action order. */
export const ReplayApproval = z.object({
  step: z.number().int().nonnegative(),
  actionIndex: z.number().int().nonnegative(),
  summary: z.string(),
  rule: z.string(),
  reason: z.string(),
  decision: z.enum(['approve', 'deny']),
  by: z.string(),
  at: z.string(),
  note: z.string().optional(),
});
export type ReplayApproval = z.infer<typeof ReplayApproval>;

/** One row of the run-level audit trail (status changes, outcome, purges...): in chain format 2 a chained record with its place, the values it set and its hash. */
export const ReplayAuditEvent = z.object({
  seq: z.number().int(),
  at: z.string(),
  type: z.string(),
  fromStatus: RunStatus.optional(),
  toStatus: RunStatus.optional(),
  reason: z.string().optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
  pid: z.number().int().optional(),
  pos: z.number().int().optional(),
  set: z.record(z.string(), z.unknown()).optional(),
  hash: z.string().optional(),
});
export type ReplayAuditEvent = z.infer<typeof ReplayAuditEvent>;

const Count = z.number().int().nonnegative();

export const ReplayTotals = z.object({
  steps: z.number().int().nonnegative(),
  actions: z.number().int().nonnegative(),
  verdicts: z.record(VerdictKind, Count),
  outcomes: z.record(OutcomeStatus, Count),
  approvals: z.number().int().nonnegative(),
  denials: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  /** Summed over the steps' model calls (the chain covers these). */
  usage: TokenUsage,
  screenshots: z.record(z.enum(['present', 'purged', 'missing', 'altered', 'none']), Count),
});
export type ReplayTotals = z.infer<typeof ReplayTotals>;

export const Replay = z.object({
  format: z.literal(REPLAY_FORMAT),
  version: z.literal(REPLAY_VERSION),
  generatedAt: z.string(),
  /** Where the evidence was read: the live store, or an exported file. */
  source: z.object({ kind: z.enum(['store', 'export']), path: z.string().optional(), exportedAt: z.string().optional() }),
  /** The run record without its case JSON (the case values that matter appear as provenance). */
  run: RunRecord.omit({ caseJson: true }),
  verify: ReplayVerify,
  chain: z.object({ definition: z.string(), genesisHash: z.string(), headHash: z.string().nullable() }),
  steps: z.array(ReplayEntry),
  approvals: z.array(ReplayApproval),
  totals: ReplayTotals,
  auditTrail: z.array(ReplayAuditEvent),
});
export type Replay = z.infer<typeof Replay>;
