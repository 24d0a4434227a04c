import type { RunStatus } from '../shared/run';

/** Statuses of a run that waits for the clerk (an approval, a one-time code): it holds no working place meanwhile. */
const CLERK_WAITS: ReadonlySet<RunStatus> = new Set(['awaiting_approval', 'awaiting_input']);

/** Runs open at once, working or waiting for the clerk, as a multiple of the working places (each holds a browser page). */
const OPEN_PER_PLACE = 3;

/**
 * How long a run waits for the clerk before its place goes to the next case: an answer that comes at
 * once (an automatic approval, `--approve all`) frees nothing, so the queue does not start a case
 * for every blink of a wait (and a route being learned by the run about to finish is there for the next).
 */
const GIVE_UP_AFTER_MS = 500;

/** One run's hold on a working place. */
export interface PlaceHold {
  /** The run's status changed: a run waiting for the clerk gives its place up, and takes it back when answered. */
  status(status: RunStatus): void;
  /** The run ended (any way): its place, and its open page, are free. */
  release(): void;
}

/**
 * The working places of a queue (a batch, a console's queue, an office desk): at most `places`
 * runs work at once, and a run waiting for the clerk (past `GIVE_UP_AFTER_MS`) holds no place, so the next case starts
 * meanwhile and a clerk away does not stall the queue. Answered, the run takes its place back at
 * once (for a moment more than `places` may work) and no new run starts until the count is under
 * `places` again. At most `places × OPEN_PER_PLACE` runs are open at once, waiting ones included.
 */
export class WorkPlaces {
  private open = 0;
  private working = 0;
  private readonly listeners = new Set<() => void>();

  constructor(readonly places: number) {}

  /** A new run may start now. */
  get hasRoom(): boolean {
    return this.working < this.places && this.open < this.places * OPEN_PER_PLACE;
  }

  /** Runs open, working or waiting for the clerk. */
  get openRuns(): number {
    return this.open;
  }

  /** A new run takes a place. */
  take(): PlaceHold {
    this.open++;
    this.working++;
    /** The place was given up for a wait that lasted. */
    let waiting = false;
    let released = false;
    let giving: NodeJS.Timeout | undefined;
    const stopGiving = (): void => {
      clearTimeout(giving);
      giving = undefined;
    };
    return {
      status: (status) => {
        if (released) return;
        if (CLERK_WAITS.has(status)) {
          if (waiting || giving) return;
          giving = setTimeout(() => {
            giving = undefined;
            if (released || waiting) return;
            waiting = true;
            this.working--;
            this.changed();
          }, GIVE_UP_AFTER_MS);
          giving.unref();
          return;
        }
        stopGiving();
        if (!waiting) return;
        waiting = false;
        this.working++;
      },
      release: () => {
        if (released) return;
        released = true;
        stopGiving();
        this.open--;
        if (!waiting) this.working--;
        this.changed();
      },
    };
  }

  /** Calls `listener` whenever a place may have come free (a run waits for the clerk, or ends); answers how to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
