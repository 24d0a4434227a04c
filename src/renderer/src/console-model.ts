import type { CaseSummary, ConsoleApi, ConsoleEvent, ModelStatus, OfficeView, PortalSummary, QueueView, RunView } from '../../shared/console-api';
import type { StepRecord } from '../../shared/run';
import type { ConnectionState, ConsoleClient } from './console-client';
import { notifyWaiting } from './notifications';

export interface ConsoleState {
  connection: ConnectionState;
  /** Every run the console knows, by id. */
  runs: ReadonlyMap<string, RunView>;
  /** Steps of the runs a screen asked for, in index order. */
  steps: ReadonlyMap<string, readonly StepRecord[]>;
  /** The latest screencast frame per run (JPEG, base64). */
  frames: ReadonlyMap<string, string>;
  cases: readonly CaseSummary[] | null;
  portals: readonly PortalSummary[] | null;
  model: ModelStatus | null;
  /** The day's queues started in this console, by id (in the order started). */
  queues: ReadonlyMap<string, QueueView>;
  /** The office queue and its waits (null until loaded; `configured: false` without an office database). */
  office: OfficeView | null;
  /** The last load that failed, for the banner. */
  problem: string | null;
}

/**
 * What the screens read: runs, steps, frames and settings, kept current from the service's event
 * feed. Immutable snapshots for React's useSyncExternalStore.
 */
export class ConsoleModel {
  private state: ConsoleState;
  private readonly listeners = new Set<() => void>();
  private readonly stepLoads = new Map<string, Promise<void>>();

  constructor(private readonly client: ConsoleClient) {
    this.state = { connection: client.connection(), runs: new Map(), steps: new Map(), frames: new Map(), cases: null, portals: null, model: null, queues: new Map(), office: null, problem: null };
    client.onEvent((event) => this.onEvent(event));
    client.onConnection((connection) => {
      this.set({ connection });
      // After a reconnect, events may have been missed: reload what the screens show.
      if (connection === 'open') void this.reload();
    });
    if (client.connection() === 'open') void this.reload();
  }

  get api(): ConsoleApi {
    return this.client.api;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ConsoleState => this.state;

  async reload(): Promise<void> {
    try {
      const [runs, cases, portals, model, queues, office] = await Promise.all([
        this.api.listRuns({}),
        this.api.listCases({}),
        this.api.listPortals({}),
        this.api.modelStatus({}),
        this.api.listQueues({}),
        this.api.officeStatus({}),
      ]);
      this.set({ runs: new Map(runs.map((v) => [v.run.id, v])), cases, portals, model, queues: new Map(queues.map((q) => [q.id, q])), office, problem: null });
      this.stepLoads.clear();
      const reloads = [...this.state.steps.keys()].map((runId) => this.loadSteps(runId));
      await Promise.all(reloads);
    } catch (err) {
      this.set({ problem: messageOf(err) });
    }
  }

  /** A queue just started (its answer comes before its first event). */
  showQueue(queue: QueueView): void {
    this.set({ queues: withEntry(this.state.queues, queue.id, queue) });
  }

  showOffice(office: OfficeView): void {
    this.set({ office });
  }

  async reloadCases(): Promise<void> {
    this.set({ cases: await this.api.listCases({}) });
  }

  /** Loads a run's steps once; streamed steps are added as they come. */
  loadSteps(runId: string): Promise<void> {
    let load = this.stepLoads.get(runId);
    if (!load) {
      load = this.api
        .listSteps({ runId })
        .then((steps) => this.set({ steps: withEntry(this.state.steps, runId, mergeSteps(steps, this.state.steps.get(runId) ?? [])) }))
        .catch((err: unknown) => {
          this.stepLoads.delete(runId);
          this.set({ problem: messageOf(err) });
        });
      this.stepLoads.set(runId, load);
    }
    return load;
  }

  /** A run the service told about after the list was read (startRun's answer comes before its first event). */
  async loadRun(runId: string): Promise<void> {
    const view = await this.api.getRun({ runId });
    this.set({ runs: withEntry(this.state.runs, runId, view) });
  }

  private onEvent(event: ConsoleEvent): void {
    switch (event.type) {
      case 'run': {
        const before = this.state.runs.get(event.view.run.id);
        this.set({ runs: withEntry(this.state.runs, event.view.run.id, event.view) });
        const asks = pendingKey(event.view);
        if (asks && asks !== (before ? pendingKey(before) : null)) notifyWaiting(event.view);
        break;
      }
      case 'step': {
        const known = this.state.steps.get(event.runId);
        if (known) this.set({ steps: withEntry(this.state.steps, event.runId, mergeSteps(known, [event.step])) });
        break;
      }
      case 'frame':
        this.set({ frames: withEntry(this.state.frames, event.runId, event.jpegBase64) });
        break;
      case 'queue':
        this.set({ queues: withEntry(this.state.queues, event.queue.id, event.queue) });
        break;
      case 'office':
        this.set({ office: event.office });
        break;
    }
  }

  private set(patch: Partial<ConsoleState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}

function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V): Map<string, V> {
  const next = new Map(map);
  next.set(key, value);
  return next;
}

function mergeSteps(a: readonly StepRecord[], b: readonly StepRecord[]): StepRecord[] {
  const byIndex = new Map<number, StepRecord>();
  for (const s of a) byIndex.set(s.index, s);
  for (const s of b) byIndex.set(s.index, s);
  return [...byIndex.values()].sort((x, y) => x.index - y.index);
}

/** What a run asks the clerk, so a second question on the same run notifies again; null when it asks nothing. */
function pendingKey(view: RunView): string | null {
  if (view.pendingApproval) return `approval:${view.pendingApproval.step}:${JSON.stringify(view.pendingApproval.action ?? view.pendingApproval.request?.url)}`;
  if (view.pendingInput) return `input:${view.pendingInput.step}:${view.pendingInput.kind}`;
  return null;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
