import type { BatchEntry, BatchOutcome } from '../service/batch';
import type { QueueEntry, QueueView, RunPhase } from '../shared/console-api';
import type { RunRecord } from '../shared/run';
import { displayNameOf } from './case-folder';

/** What the queue asks the console about a case's run while it lives. */
export interface QueueLookups {
  /** The run waits for the clerk: what for, in one line; null when it does not. */
  clerkWait(runId: string): string | null;
  /** When the run's wait for the clerk runs out, where it says. */
  waitExpiresAt(runId: string): string | undefined;
  /** The run holding the case's client and portal in this console, when another one does. */
  slotHolder(entry: { clientId: string; portal: string }): string | undefined;
  /** The run's record as the store has it now (its status and reason), if it exists yet. */
  record(runId: string): RunRecord | undefined;
  /** What the live run is doing now. */
  phase(runId: string): RunPhase | undefined;
}

interface Tracked {
  file: string;
  caseId: string;
  clientId: string;
  portal: string;
  displayName?: string;
  /** Refused before it ran: the one-line reason. */
  problem?: string;
  runId?: string;
  outcome?: BatchOutcome;
}

/**
 * A day's queue as the console shows it: the case files the clerk chose, run by the batch machinery
 * (src/service/batch.ts), each entry's state worked out from where its run is.
 */
export class CaseQueue {
  readonly startedAt = new Date().toISOString();
  endedAt: string | undefined;
  private readonly entries: Tracked[];

  constructor(
    readonly id: string,
    readonly label: string,
    readonly concurrency: number,
    readonly planner: 'rules' | 'anthropic',
    batch: readonly BatchEntry[],
  ) {
    this.entries = batch.map((entry) =>
      'problem' in entry
        ? { file: entry.source, caseId: entry.source.replace(/^.*\//, '').replace(/\.json$/, ''), clientId: '', portal: '', problem: entry.problem }
        : { file: entry.source, caseId: entry.caseFile.caseId, clientId: entry.caseFile.clientId, portal: entry.caseFile.portal, displayName: displayNameOf(entry.caseFile) },
    );
  }

  /** The entry of a case file (by its source, as the batch names it). */
  private entry(source: string): Tracked | undefined {
    return this.entries.find((e) => e.file === source);
  }

  started(source: string, runId: string): void {
    const e = this.entry(source);
    if (e) e.runId = runId;
  }

  finished(outcome: BatchOutcome): void {
    const e = this.entry(outcome.source);
    if (!e) return;
    e.outcome = outcome;
    if (outcome.runId) e.runId = outcome.runId;
    if (this.entries.every((x) => x.outcome || x.problem)) this.endedAt = new Date().toISOString();
  }

  holds(runId: string): boolean {
    return this.entries.some((e) => e.runId === runId);
  }

  view(look: QueueLookups): QueueView {
    return {
      id: this.id,
      label: this.label,
      concurrency: this.concurrency,
      planner: this.planner,
      startedAt: this.startedAt,
      ...(this.endedAt ? { endedAt: this.endedAt } : {}),
      entries: this.entries.map((e) => entryView(e, look, this.concurrency)),
    };
  }
}

function entryView(e: Tracked, look: QueueLookups, concurrency: number): QueueEntry {
  const base = { file: e.file, caseId: e.caseId, clientId: e.clientId, portal: e.portal, ...(e.displayName ? { displayName: e.displayName } : {}), ...(e.runId ? { runId: e.runId } : {}) };
  if (e.problem) return { ...base, state: 'not_done', reason: `Cannot run: ${e.problem}` };
  const o = e.outcome;
  if (o) {
    if (o.status === 'done') return { ...base, state: 'done', reason: o.applicationNumber ? `Submitted — application number ${o.applicationNumber}` : o.reason };
    const how = o.status === 'invalid' ? 'Cannot run' : o.status === 'error' ? 'Stopped by an error' : o.status;
    return { ...base, state: 'not_done', reason: `${how}: ${o.reason}` };
  }
  if (!e.runId) {
    const holder = look.slotHolder(e);
    return {
      ...base,
      state: 'waiting',
      reason: holder !== undefined ? `Waiting: another run of ${e.clientId} on ${e.portal} is in progress (one at a time)` : `Waiting for its turn (at most ${concurrency} working at once)`,
    };
  }
  const asks = look.clerkWait(e.runId);
  if (asks) {
    const expiresAt = look.waitExpiresAt(e.runId);
    return { ...base, state: 'waiting_clerk', reason: asks, ...(expiresAt ? { waitExpiresAt: expiresAt } : {}) };
  }
  const record = look.record(e.runId);
  const phase = look.phase(e.runId);
  return { ...base, state: 'running', ...(phase ? { phase } : {}), reason: record && record.stepCount > 0 ? `step ${record.stepCount}` : 'starting' };
}
