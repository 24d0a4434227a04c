import { z } from 'zod';
import { Action } from './action';
import { Observation } from './observation';
import { Outcome } from './outcome';
import { RequestEntry } from './request-log';
import { StepSource } from './route';
import { Verdict } from './verdict';

/** Where a run is. `done`, `failed` and `blocked` are final; only `done` is success. */
export const RunStatus = z.enum([
  'queued',
  'running',
  'awaiting_approval',
  'awaiting_input',
  'done',
  'failed',
  'blocked',
  /** The process died mid-run; `resume` continues it from the store. */
  'interrupted',
]);
export type RunStatus = z.infer<typeof RunStatus>;
export const FINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'blocked'];

/** How gated actions are approved. `all` and `none` exist for demos and tests only. */
export const ApproveMode = z.enum(['ask', 'all', 'none']);
export type ApproveMode = z.infer<typeof ApproveMode>;

export const Approval = z.object({
  decision: z.enum(['approve', 'deny']),
  /** Who decided: a clerk's name, or "auto:all" / "auto:none" in demo modes. */
  by: z.string(),
  at: z.string(),
  note: z.string().optional(),
});
export type Approval = z.infer<typeof Approval>;

export const TokenUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;
export const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

/** Every token a usage counts, of all kinds together (input, output, cache read, cache write). */
export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** What one planner call cost and carried (digests, never payloads with secrets). */
export const ModelCall = z.object({
  planner: z.string(),
  model: z.string().optional(),
  requestDigest: z.string().optional(),
  responseDigest: z.string().optional(),
  usage: TokenUsage.optional(),
  ms: z.number().nonnegative(),
  /** A screenshot went up with this call, and why. */
  imageSent: z.boolean().default(false),
  imageReason: z.string().optional(),
});
export type ModelCall = z.infer<typeof ModelCall>;

/** One proposed action with everything that happened to it. */
export const StepAction = z.object({
  action: Action,
  /** The control it names, as seen in the observation: `button "Submit application"`. */
  element: z.string().optional(),
  verdict: Verdict,
  approval: Approval.optional(),
  outcome: Outcome,
});
export type StepAction = z.infer<typeof StepAction>;

/** Things code did or saw outside the model's actions: sign-in, OTP (masked), blocked navigations... */
export const StepEvent = z.object({
  type: z.string(),
  message: z.string(),
  at: z.string(),
  /**
   * A request the egress lock, the network lock or the commit gate judged (or let through), as
   * data for the requests pane: what, whether it went, and the deciding rule. Older steps have
   * none; their pane reads the event's type and message (src/shared/step-log.ts).
   */
  request: z
    .object({
      method: z.string(),
      url: z.string(),
      outcome: z.enum(['sent', 'refused', 'denied']),
      rule: z.string(),
    })
    .optional(),
});
export type StepEvent = z.infer<typeof StepEvent>;

/** One turn of the loop: read, decide, guard, act. */
export const StepRecord = z.object({
  runId: z.string(),
  index: z.number().int().nonnegative(),
  startedAt: z.string(),
  endedAt: z.string(),
  observation: Observation,
  /** sha256 of the canonical observation. */
  observationHash: z.string(),
  /** sha256 of the PNG screenshot taken with the read (the "before" picture), or null. */
  screenshotHash: z.string().nullable(),
  /** sha256 of the viewport PNG taken after the step's actions ran and the page settled (steps recorded before schema 5 have none). */
  afterScreenshotHash: z.string().nullable().optional(),
  /** sha256 of the full-page PNG taken at a gated step (a needs_approval verdict or a held commit request). */
  fullPageHash: z.string().nullable().optional(),
  reasoning: z.string(),
  model: ModelCall.nullable(),
  /** Where the turn's actions came from: the learned route or the planner (code's own steps, and steps before routes, have none). */
  source: StepSource.optional(),
  actions: z.array(StepAction),
  events: z.array(StepEvent),
  /** What the egress lock let through and refused during the step, repeats counted (steps recorded before it kept them have none). */
  requests: z.array(RequestEntry).optional(),
  /** sha256 of the canonical `requests`: verify names the field when a recorded request was edited. */
  requestsSha256: z.string().optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;

export const RunRecord = z.object({
  id: z.string(),
  caseId: z.string(),
  clientId: z.string(),
  portal: z.string(),
  task: z.string(),
  planner: z.string(),
  model: z.string().optional(),
  approveMode: ApproveMode,
  status: RunStatus,
  /** One line on why the run is where it is: "Waiting for approval: Submit application". */
  reason: z.string().optional(),
  applicationNumber: z.string().optional(),
  /** The case file as it was when the run started, plus clerk answers as they came. */
  caseJson: z.string(),
  layout: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  stepCount: z.number().int().nonnegative(),
  usage: TokenUsage,
  /** Hash of the last step in the run's chain (tamper evidence). */
  headHash: z.string().optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** The progress of one form for one client: lets a run resume a draft and never submit twice. */
export const ProgressRecord = z.object({
  clientId: z.string(),
  portal: z.string(),
  task: z.string(),
  caseId: z.string(),
  sectionsDone: z.array(z.string()),
  draftId: z.string().optional(),
  applicationNumber: z.string().optional(),
  /** A submit was clicked; before clicking it again, check whether it went through. */
  submitAttemptedAt: z.string().optional(),
  updatedAt: z.string(),
});
export type ProgressRecord = z.infer<typeof ProgressRecord>;

/** The summary `run --json` prints and batch runs collect. */
export const RunSummary = z.object({
  runId: z.string(),
  caseId: z.string(),
  status: RunStatus,
  reason: z.string().optional(),
  steps: z.number().int().nonnegative(),
  applicationNumber: z.string().optional(),
  /** What the lab recorded as submitted (lab portals only). */
  submittedFields: z.record(z.string(), z.union([z.string(), z.boolean()])).optional(),
  usage: TokenUsage,
  approvals: z.number().int().nonnegative(),
  wallMs: z.number().nonnegative(),
  /** The learned route: pages it answered, pages the planner decided, and what the run did to the route (absent with --no-route). */
  route: z
    .object({
      routeSteps: z.number().int().nonnegative(),
      plannerSteps: z.number().int().nonnegative(),
      update: z.enum(['none', 'learned', 'healed', 'confirmed', 'failed', 'retired']),
      version: z.number().int().positive().optional(),
    })
    .optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;
