import { ConsoleEvent } from '../shared/console-api';

/** Most recent frames kept per run, so a UI that connects late sees the page at once. */
const KEPT_FRAMES = 24;

/**
 * What the console pushes to the UI (run views, steps, live frames, queues, the office), to every
 * subscriber: Electron IPC and the browser console's WebSocket alike. Each event is checked once
 * here, whichever channel carries it; the latest frame of each run is kept for late subscribers.
 */
export class ConsoleFeed {
  private readonly listeners = new Set<(event: ConsoleEvent) => void>();
  private readonly frames = new Map<string, string>();

  constructor(
    /** The runs live in the console now: their latest frames are kept and shown to a new subscriber. */
    private readonly liveRuns: () => Iterable<string>,
  ) {}

  subscribe(listener: (event: ConsoleEvent) => void): () => void {
    this.listeners.add(listener);
    // The latest frame of each live run, so a screen opened mid-run is not blank until the page repaints.
    queueMicrotask(() => {
      for (const runId of this.liveRuns()) {
        const frame = this.frames.get(runId);
        if (frame && this.listeners.has(listener)) deliver(listener, { type: 'frame', runId, jpegBase64: frame });
      }
    });
    return () => this.listeners.delete(listener);
  }

  emit(event: ConsoleEvent): void {
    if (this.listeners.size === 0) return;
    // What crosses to the UI is checked here once, whichever channel carries it.
    const checked = ConsoleEvent.parse(event);
    for (const listener of this.listeners) deliver(listener, checked);
  }

  /** A run's live view repainted: kept as its latest frame, and sent. */
  frame(runId: string, jpegBase64: string): void {
    this.frames.delete(runId);
    this.frames.set(runId, jpegBase64);
    this.emit({ type: 'frame', runId, jpegBase64 });
  }

  /** A run ended: past KEPT_FRAMES, the frames of runs no longer live go, oldest first. */
  trimFrames(): void {
    const live = new Set(this.liveRuns());
    for (const runId of this.frames.keys()) {
      if (this.frames.size <= KEPT_FRAMES) break;
      if (!live.has(runId)) this.frames.delete(runId);
    }
  }

  /** The console closed: nobody is told anything more. */
  close(): void {
    this.listeners.clear();
  }
}

function deliver(listener: (event: ConsoleEvent) => void, event: ConsoleEvent): void {
  try {
    listener(event);
  } catch {
    // One broken listener (a closed socket) does not stop the others.
  }
}
