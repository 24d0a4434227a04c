import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile } from '../agent/case/portal-profiles';
import { AnthropicConfigError } from '../agent/decide/anthropic';
import { newRunId } from '../agent/loop/run-id';
import { runBatch, type BatchEntry, type BatchOutcome } from '../service/batch';
import { createPlanner } from '../service/planners';
import type { CaseFile } from '../shared/case-file';
import type { QueueEntry, QueueView, RunPhase } from '../shared/console-api';
import type { PortalProfile } from '../shared/portal-profile';
import type { RunRecord } from '../shared/run';
import { caseEntry, displayNameOf, folderEntries } from './case-folder';
import type { ClerkDesk } from './clerk-desk';
import { ConsoleRequestError } from './console-request-error';
import type { LiveRuns } from './live-runs';
import type { RunLauncher } from './run-launcher';

/** What the queue asks the console about a case's run while it lives. */
interface QueueLookups {
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
class CaseQueue {
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

interface CaseQueuesOptions {
  casesDir: string;
  portalFolders: string[];
  env: Record<string, string | undefined>;
  desk: ClerkDesk;
  runs: LiveRuns;
  launcher: RunLauncher;
  /** Shows a queue as it is now. */
  show: (view: QueueView) => void;
}

/**
 * The day's queues started in this console, oldest first: the case files the clerk ticks (or a
 * folder's) run through the batch machinery, at most `concurrency` at once, one run per client
 * and portal across the whole console.
 */
export class CaseQueues {
  private readonly queues = new Map<string, CaseQueue>();

  constructor(private readonly o: CaseQueuesOptions) {}

  list(): QueueView[] {
    return [...this.queues.values()].map((q) => q.view(this.lookups()));
  }

  /** A run changed: the queues holding it show it again. */
  showRun(runId: string): void {
    for (const queue of this.queues.values()) if (queue.holds(runId)) this.show(queue);
  }

  /** Runs case files (or a folder's) as a queue: every file and its portal checked first, a broken one shown as not done. */
  async start(p: { files?: string[]; folder?: string; concurrency: number; planner: 'rules' | 'anthropic' }): Promise<QueueView> {
    const entries = p.folder !== undefined ? folderEntries(this.o.casesDir, p.folder) : p.files!.map((file) => caseEntry(this.o.casesDir, file));
    if (!entries) throw new ConsoleRequestError(`"${p.folder}" is not a folder in the cases folder`);
    if (entries.length === 0) throw new ConsoleRequestError(`No case files in "${p.folder ?? ''}"`);
    const profiles = new Map<CaseFile, PortalProfile>();
    const checked = entries.map((entry): BatchEntry => {
      if ('problem' in entry) return entry;
      try {
        const profile = loadPortalProfile(entry.caseFile.portal, this.o.portalFolders);
        profiles.set(entry.caseFile, profile);
        return entry;
      } catch (err) {
        if (err instanceof ConfigFileError) return { source: entry.source, problem: `portal "${entry.caseFile.portal}": ${err.problem}` };
        throw err;
      }
    });
    const first = [...profiles.values()][0];
    try {
      if (first) createPlanner(p.planner, first, {}, this.o.env);
    } catch (err) {
      if (err instanceof AnthropicConfigError) throw new ConsoleRequestError(err.message);
      throw err;
    }
    const id = `queue-${this.queues.size + 1}-${Date.now().toString(36)}`;
    const label = p.folder !== undefined ? `folder ${p.folder || '(all)'}` : `${checked.length} case file${checked.length === 1 ? '' : 's'}`;
    const queue = new CaseQueue(id, label, p.concurrency, p.planner, checked);
    this.queues.set(id, queue);
    const sources = new Map<CaseFile, string>(checked.flatMap((e) => ('problem' in e ? [] : [[e.caseFile, e.source] as const])));
    void runBatch(checked, {
      concurrency: p.concurrency,
      services: this.o.launcher.sharedServices(),
      prepare: async (caseFile) => {
        this.show(queue);
        const slot = await this.o.runs.waitForSlot(caseFile, 'The console closed before this case started');
        const live = this.o.runs.register(caseFile, slot, { runId: newRunId(), resumed: false, planner: p.planner });
        queue.started(sources.get(caseFile) ?? '', live.runId);
        this.show(queue);
        return this.o.launcher.prepare(live, caseFile, profiles.get(caseFile)!, { planner: p.planner, resume: false });
      },
      listener: {
        finished: (outcome) => {
          queue.finished(outcome);
          this.show(queue);
        },
      },
      // A client busy with a run started elsewhere in this console waits without taking one of the queue's places.
      outside: this.o.runs.outside(),
    });
    return queue.view(this.lookups());
  }

  private show(queue: CaseQueue): void {
    this.o.show(queue.view(this.lookups()));
  }

  /** What a queue asks of the console about its entries' runs. */
  private lookups(): QueueLookups {
    return {
      clerkWait: (runId) => this.o.desk.waitLine(runId) ?? recordedWait(this.o.runs.lastRecord(runId)),
      waitExpiresAt: (runId) => this.o.desk.pendingApproval(runId)?.expiresAt,
      slotHolder: (e) => this.o.runs.slotHolder(e),
      record: (runId) => this.o.runs.lastRecord(runId),
      phase: (runId) => this.o.runs.get(runId)?.phase,
    };
  }
}

/** A run waiting for a clerk where this console's desk does not hold the question (an office row): its record says so. */
function recordedWait(record: RunRecord | undefined): string | null {
  if (record && (record.status === 'awaiting_approval' || record.status === 'awaiting_input')) return record.reason ?? 'Waiting for a clerk';
  return null;
}
