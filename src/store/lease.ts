import { PortalDeskError } from '../base/portal-desk-error';

/**
 * Fencing: a desk's hold on a run is a lease epoch, a number in the run's row. The store that
 * creates a run holds epoch 1; a store that writes a run it does not hold yet (a resume) takes it
 * by raising the epoch; a take-over raises it too. Every write of a run checks, under the row's
 * lock, that the epoch is still the one this store holds: a desk that was frozen or cut off while
 * another desk took its run over finds its writes refused, and writes nothing into that run.
 */
class LeaseLostError extends PortalDeskError {
  constructor(runId: string, held: number, current: number) {
    super(`Refused to write run ${runId}: this desk's hold on it (lease epoch ${held}) was taken over (epoch ${current} now); it stopped and wrote nothing.`);
  }
}

/** The epochs one store instance holds, by run id. */
export class RunLeases {
  private readonly held = new Map<string, number>();

  /** The run was created here: epoch 1 is ours. */
  created(runId: string): void {
    this.held.set(runId, 1);
  }

  /**
   * Checks a write of a run whose row (locked) has `current` as its epoch. Answers the epoch to
   * write when this store takes the hold now (a first write of a run created elsewhere), else
   * null; throws LeaseLostError when the hold this store had is stale.
   */
  check(runId: string, current: number): number | null {
    const held = this.held.get(runId);
    if (held === undefined) {
      this.held.set(runId, current + 1);
      return current + 1;
    }
    if (held !== current) throw new LeaseLostError(runId, held, current);
    return null;
  }

  /**
   * A resume takes the run whatever this store held before (its owner is gone: the resume checked
   * that under the row's lock): the next write raises the epoch, so an earlier hold, ours or a
   * frozen desk's, writes nothing more.
   */
  resuming(runId: string): void {
    this.held.delete(runId);
  }

  /** Whether this store still holds the run at `current` (a run it never wrote: yes, nothing to lose). */
  holds(runId: string, current: number | undefined): boolean {
    const held = this.held.get(runId);
    return held === undefined || held === current;
  }
}
