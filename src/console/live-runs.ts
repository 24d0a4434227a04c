import type { Page } from 'playwright-core';
import { errorText } from '../base/error-text';
import type { CaseFile } from '../shared/case-file';
import type { RunPhase, RunView } from '../shared/console-api';
import type { PortalProfile } from '../shared/portal-profile';
import { FINAL_STATUSES, ZERO_USAGE, type RunRecord, type RunStatus } from '../shared/run';
import type { Store } from '../store';
import { pendingReading, type AskedApproval } from './approval-detail';
import { displayNameOf } from './case-folder';
import type { ClerkDesk } from './clerk-desk';
import { ClientSlots } from './client-slots';
import type { ConsoleFeed } from './console-feed';
import { ConsoleRequestError } from './console-request-error';
import type { Screencast } from './screencast';

export interface LiveRun {
  runId: string;
  /** Its client and portal (ClientSlots), held until the run is over. */
  slot: string;
  screencast?: Screencast;
  finished: Promise<void>;
  /** Resolves `finished`. */
  settle: () => void;
  /** The run as the console shows it until the store has it (its browser is starting). */
  placeholder?: RunRecord;
  /** Ends the shell's start gate (the run's page exists, or it could not start). */
  endStart?: () => void;
  /** The run's portal page (take-over input, approval pictures). */
  page?: Page;
  caseFile: CaseFile;
  profile: PortalProfile;
  phase: RunPhase;
  /** The console closed: nothing this run's loop writes from now on reaches the store (it stays `interrupted`). */
  frozen: boolean;
  /** What the pending approval will do, read from the page when it was asked. */
  approval?: AskedApproval;
}

/** A run the console is about to show: its id, whether the store has it already (a resume), and what the clerk chose. */
interface RunStart {
  runId: string;
  resumed: boolean;
  planner: 'rules' | 'anthropic';
  layout?: string;
}

interface LiveRunsOptions {
  store: Store;
  desk: ClerkDesk;
  feed: ConsoleFeed;
  /** The console is closing: no run starts, nothing more is shown. */
  closing: () => boolean;
  /** Told after a run's view went out (the queues holding the run show it again). */
  shown: (runId: string) => void;
}

/**
 * The runs this console shows, from the moment the clerk (a queue, the office) starts one until it
 * is over: one per client and portal at a time (ClientSlots), each with its live state, and the
 * views the UI gets of them, stored or still starting.
 */
export class LiveRuns {
  private readonly live = new Map<string, LiveRun>();
  private readonly slots = new ClientSlots();
  /** The latest record of each run the console told about (a queue's entries read their state from it). */
  private readonly records = new Map<string, RunRecord>();
  /** Runs that could not start before the store had them: shown as failed for this session. */
  private readonly unstarted = new Map<string, RunRecord>();

  constructor(private readonly o: LiveRunsOptions) {}

  get(runId: string): LiveRun | undefined {
    return this.live.get(runId);
  }

  ids(): IterableIterator<string> {
    return this.live.keys();
  }

  /** The run's record as the console last told about it. */
  lastRecord(runId: string): RunRecord | undefined {
    return this.records.get(runId);
  }

  /** The run holding this client and portal in this console, when one does (`''` while it starts). */
  slotHolder(c: { clientId: string; portal: string }): string | undefined {
    return this.slots.holder(ClientSlots.keyOf(c));
  }

  /** For a batch (BatchOptions.outside): a client busy with a run started elsewhere in this console waits without taking one of the batch's places. */
  outside(): { held(caseFile: CaseFile): boolean; onRelease(listener: () => void): () => void } {
    return { held: (caseFile) => this.slotHolder(caseFile) !== undefined, onRelease: (listener) => this.slots.onRelease(listener) };
  }

  /** One run per client and portal at a time: a clerk's start is refused while another run holds the slot. */
  claimAndRegister(caseFile: CaseFile, run: RunStart): LiveRun {
    const slot = ClientSlots.keyOf(caseFile);
    if (!this.slots.tryClaim(slot, run.runId)) {
      const holder = this.slots.holder(slot);
      throw new ConsoleRequestError(`A run for client ${caseFile.clientId} on ${caseFile.portal} is already in progress${holder ? ` (${holder})` : ''}; let it finish first`);
    }
    return this.register(caseFile, slot, run);
  }

  /**
   * A queued or office case waits for its client and portal instead (a run of them started
   * elsewhere in this console goes first); answers the slot, held, for `register`.
   */
  async waitForSlot(caseFile: CaseFile, closedMessage: string): Promise<string> {
    const slot = ClientSlots.keyOf(caseFile);
    await this.slots.claim(slot);
    if (this.o.closing()) {
      this.slots.release(slot);
      throw new ConsoleRequestError(closedMessage);
    }
    return slot;
  }

  /** A run the console shows from now on, its browser starting; the slot is held already. */
  register(caseFile: CaseFile, slot: string, run: RunStart): LiveRun {
    let settle!: () => void;
    const finished = new Promise<void>((r) => (settle = r));
    const live: LiveRun = {
      runId: run.runId,
      slot,
      finished,
      settle,
      caseFile,
      profile: undefined as unknown as PortalProfile,
      phase: 'starting_browser',
      frozen: false,
      ...(run.resumed ? {} : { placeholder: startingRecord(run.runId, caseFile, run.planner, run.layout) }),
    };
    this.slots.name(slot, run.runId);
    this.live.set(run.runId, live);
    void this.emitRun(run.runId);
    return live;
  }

  /** The run is over (or never started): its slot, its live view and its parked questions go; an ending it could not record is recorded. */
  async release(live: LiveRun, err?: unknown): Promise<void> {
    live.endStart?.();
    this.slots.release(live.slot);
    await live.screencast?.stop();
    this.o.desk.release(live.runId);
    this.live.delete(live.runId);
    this.o.feed.trimFrames();
    if (!live.frozen && !this.o.closing()) {
      const run = await this.o.store.getRun(live.runId).catch(() => null);
      if (!run && live.placeholder) {
        this.unstarted.set(live.runId, { ...live.placeholder, status: 'failed', reason: `The run could not start: ${errorText(err ?? 'it stopped before its browser was ready')}`, endedAt: new Date().toISOString() });
      } else if (run && !FINAL_STATUSES.includes(run.status) && run.status !== 'interrupted') {
        // It broke before it could say how (the browser went away before its first page).
        await this.o.store.updateRun(run.id, { status: 'failed', reason: `The run could not start: ${errorText(err ?? 'it stopped before its first page')}`, endedAt: new Date().toISOString() }).catch(() => undefined);
      }
      await this.emitRun(live.runId);
    }
    live.settle();
  }

  /**
   * The console is closing. Nothing is approved, denied or declined on the clerk's behalf: each
   * live run is recorded `interrupted` with what it waited for, its loop's further writes are
   * dropped, and `resumeRun` (or `portal-desk resume`) continues it.
   */
  async interruptAll(): Promise<void> {
    // Freeze first, then unwind: the parked questions fail, and what the loops write as they end is dropped.
    const live = [...this.live.values()];
    for (const run of live) run.frozen = true;
    for (const run of live) {
      const view = await this.o.store.getRun(run.runId).catch(() => null);
      if (!view || FINAL_STATUSES.includes(view.status)) continue;
      const what = view.status === 'awaiting_approval' ? 'your approval' : view.status === 'awaiting_input' ? 'you' : null;
      const reason = what
        ? `Interrupted: the console closed while the run waited for ${what} (step ${view.stepCount}); nothing was decided for you. Resume it to go on`
        : `Interrupted: the console closed mid-run after step ${view.stepCount}; resume it to go on`;
      await this.o.store.updateRun(run.runId, { status: 'interrupted', reason }).catch(() => undefined);
    }
  }

  async stopScreencasts(): Promise<void> {
    for (const run of this.live.values()) await run.screencast?.stop();
  }

  /** Waits at most `ms` for the live runs to end (their browsers are gone; their ends are dropped). */
  async ended(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.live.values()].map((r) => r.finished)), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  // ---- Views ----------------------------------------------------------------------------------

  /** Every run of the store (the latest 200), with the runs still starting and those that could not start first. */
  async views(status: RunStatus | undefined): Promise<RunView[]> {
    const stored = await this.o.store.listRuns({ status, limit: 200 });
    const known = new Set(stored.map((r) => r.id));
    const starting = [...[...this.live.values()].map((r) => r.placeholder), ...this.unstarted.values()].filter(
      (r): r is RunRecord => !!r && !known.has(r.id) && (!status || r.status === status),
    );
    return Promise.all([...starting, ...stored].map((run) => this.viewOf(run)));
  }

  async viewOf(run: RunRecord): Promise<RunView> {
    const live = this.live.get(run.id);
    const pendingApproval = this.o.desk.pendingApproval(run.id);
    const approval = pendingReading(live?.approval, pendingApproval);
    return {
      run,
      pendingApproval,
      pendingInput: this.o.desk.pendingInput(run.id),
      pendingTakeOver: this.o.desk.pendingTakeOver(run.id),
      approvalDetail: approval ? { step: approval.step, fullPage: approval.fullPagePng !== null, review: approval.review } : null,
      phase: live ? live.phase : null,
      displayName: displayNameFrom(run),
    };
  }

  /** The run as the store has it, or as the console shows it while its browser starts (or after it could not start). */
  private async recordOf(runId: string): Promise<RunRecord | null> {
    const stored = await this.o.store.getRun(runId);
    return stored ?? this.live.get(runId)?.placeholder ?? this.unstarted.get(runId) ?? null;
  }

  async requireRun(runId: string): Promise<RunRecord> {
    const run = await this.recordOf(runId);
    if (!run) throw new ConsoleRequestError(`No run "${runId}" in this console's store`);
    return run;
  }

  /** Shows the run as it is now (and the queues holding it). */
  async emitRun(runId: string): Promise<void> {
    if (this.o.closing()) return;
    const run = await this.recordOf(runId).catch(() => null);
    if (!run) return;
    this.records.set(runId, run);
    this.o.feed.emit({ type: 'run', view: await this.viewOf(run) });
    this.o.shown(runId);
  }
}

/** A new run as the console shows it while its browser starts: the store has no record of it yet. */
function startingRecord(runId: string, caseFile: CaseFile, planner: 'rules' | 'anthropic', layout: string | undefined): RunRecord {
  return {
    id: runId,
    caseId: caseFile.caseId,
    clientId: caseFile.clientId,
    portal: caseFile.portal,
    task: caseFile.task,
    planner,
    approveMode: 'ask',
    status: 'queued',
    reason: 'Starting',
    caseJson: JSON.stringify({ caseFile, planner, layout }),
    ...(layout ? { layout } : {}),
    startedAt: new Date().toISOString(),
    stepCount: 0,
    usage: ZERO_USAGE,
  };
}

const displayNames = new Map<string, string>();

function displayNameFrom(run: RunRecord): string {
  let name = displayNames.get(run.id);
  if (name === undefined) {
    try {
      const stored = JSON.parse(run.caseJson) as { caseFile?: { clientId?: string; fields?: Record<string, unknown> } };
      name = displayNameOf({ clientId: run.clientId, fields: (stored.caseFile?.fields ?? {}) as CaseFile['fields'] });
    } catch {
      name = run.clientId;
    }
    displayNames.set(run.id, name);
  }
  return name;
}
