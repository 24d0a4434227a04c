import type { ProgressRecord, RunRecord, RunStatus } from '../shared/run';

/** Rows as SQLite returns them, and their mapping to the shared records. */

export interface RunRow {
  id: string;
  case_id: string;
  client_id: string;
  portal: string;
  task: string;
  planner: string;
  model: string | null;
  approve_mode: string;
  status: string;
  reason: string | null;
  application_number: string | null;
  case_json: string;
  layout: string | null;
  started_at: string;
  ended_at: string | null;
  step_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  head_hash: string | null;
  owner_pid: number | null;
  owner_token: string | null;
  /** The hold's epoch (src/store/lease.ts); 0 on runs from before fencing. */
  lease_epoch: number;
  purged_at: string | null;
  chain_version: number;
  genesis_json: string | null;
  record_count: number;
}

export function runFromRow(row: RunRow): RunRecord {
  const run: RunRecord = {
    id: row.id,
    caseId: row.case_id,
    clientId: row.client_id,
    portal: row.portal,
    task: row.task,
    planner: row.planner,
    approveMode: row.approve_mode as RunRecord['approveMode'],
    status: row.status as RunStatus,
    caseJson: row.case_json,
    startedAt: row.started_at,
    stepCount: row.step_count,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      cacheReadTokens: row.cache_read_tokens,
      cacheWriteTokens: row.cache_write_tokens,
      costUsd: row.cost_usd,
    },
  };
  if (row.model !== null) run.model = row.model;
  if (row.reason !== null) run.reason = row.reason;
  if (row.application_number !== null) run.applicationNumber = row.application_number;
  if (row.layout !== null) run.layout = row.layout;
  if (row.ended_at !== null) run.endedAt = row.ended_at;
  if (row.head_hash !== null) run.headHash = row.head_hash;
  return run;
}

export interface ProgressRow {
  client_id: string;
  portal: string;
  task: string;
  case_id: string;
  sections_done: string;
  draft_id: string | null;
  application_number: string | null;
  submit_attempted_at: string | null;
  updated_at: string;
}

export function progressFromRow(row: ProgressRow): ProgressRecord {
  const p: ProgressRecord = {
    clientId: row.client_id,
    portal: row.portal,
    task: row.task,
    caseId: row.case_id,
    sectionsDone: JSON.parse(row.sections_done) as string[],
    updatedAt: row.updated_at,
  };
  if (row.draft_id !== null) p.draftId = row.draft_id;
  if (row.application_number !== null) p.applicationNumber = row.application_number;
  if (row.submit_attempted_at !== null) p.submitAttemptedAt = row.submit_attempted_at;
  return p;
}

/** One approval decision, as the `approvals` view lists it. */
export interface ApprovalEntry {
  runId: string;
  step: number;
  actionIndex: number;
  actionType: string;
  /** The control, as the step recorded it: `button "Submit application"`. */
  element?: string;
  /** The guard rule that asked for approval. */
  rule: string;
  decision: 'approve' | 'deny';
  by: string;
  at: string;
  note?: string;
}

export interface ApprovalRow {
  run_id: string;
  step: number;
  action_index: number;
  action_type: string;
  element: string | null;
  rule: string;
  decision: 'approve' | 'deny';
  decided_by: string;
  decided_at: string;
  note: string | null;
}

export function approvalFromRow(row: ApprovalRow): ApprovalEntry {
  const a: ApprovalEntry = {
    runId: row.run_id,
    step: row.step,
    actionIndex: row.action_index,
    actionType: row.action_type,
    rule: row.rule,
    decision: row.decision,
    by: row.decided_by,
    at: row.decided_at,
  };
  if (row.element !== null) a.element = row.element;
  if (row.note !== null) a.note = row.note;
  return a;
}

export type RunEventType = 'created' | 'status' | 'resumed' | 'updated' | 'interrupted' | 'purged' | 'outcome';

/** One row of a run's audit trail (append-only). */
export interface RunEvent {
  seq: number;
  runId: string;
  at: string;
  type: RunEventType;
  fromStatus?: RunStatus;
  toStatus?: RunStatus;
  reason?: string;
  /** Field names changed, purge cutoff, the dead owner's pid... never values of the case. */
  detail?: Record<string, unknown>;
  /** The process that wrote the event. */
  pid?: number;
  /** Chain v2 runs: the event's place in the run's record log (steps and events, from 0). */
  pos?: number;
  /**
   * Chain v2 runs: the run fields this event set, with their values (the case copy by its
   * sha256, never its text): status, reason, applicationNumber, endedAt, model, caseJsonSha256;
   * an `outcome` also its usage, step count and receipt hash; a `purged` the screenshots it removed.
   */
  set?: Record<string, unknown>;
  /** Chain v2 runs: this event's hash in the run's chain. */
  hash?: string;
}

export interface RunEventRow {
  seq: number;
  run_id: string;
  at: string;
  type: string;
  from_status: string | null;
  to_status: string | null;
  reason: string | null;
  detail: string | null;
  pid: number | null;
  pos: number | null;
  set_json: string | null;
  hash: string | null;
}

export function eventFromRow(row: RunEventRow): RunEvent {
  const e: RunEvent = { seq: row.seq, runId: row.run_id, at: row.at, type: row.type as RunEventType };
  if (row.from_status !== null) e.fromStatus = row.from_status as RunStatus;
  if (row.to_status !== null) e.toStatus = row.to_status as RunStatus;
  if (row.reason !== null) e.reason = row.reason;
  if (row.detail !== null) e.detail = JSON.parse(row.detail) as Record<string, unknown>;
  if (row.pid !== null) e.pid = row.pid;
  if (row.pos !== null) e.pos = row.pos;
  if (row.set_json !== null) e.set = JSON.parse(row.set_json) as Record<string, unknown>;
  if (row.hash !== null) e.hash = row.hash;
  return e;
}
