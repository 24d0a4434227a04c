import type { HostPolicy } from '../shared/allowed-hosts';

/**
 * Which client (and so which Electron session) and which portal (and so which address policy)
 * a browser context of the engine belongs to. Playwright's `newContext` carries neither over the
 * DevTools protocol, so the shell learns them where the run is asked for: `startRun` names the
 * case file. Runs are started one at a time through `starting()`, and the first page a new
 * context opens during that start claims the binding. A context that opens with nothing to claim
 * gets no binding, and the shell gives it a throw-away session in which nothing may load.
 */

export interface RunBinding {
  /** The run whose page the context opens (its portal view's input follows the run's take-over). */
  runId: string;
  clientId: string;
  portalId: string;
  /** The portal's address policy as the run uses it (lab portals: bound to the lab's port). */
  policy: HostPolicy;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,80}$/;

/** The Electron session partition of one client: on disk (`persist:`), one per client, never shared. */
export function clientPartition(clientId: string): string {
  if (!CLIENT_ID.test(clientId)) throw new Error(`"${clientId.slice(0, 100)}" is not a client id (1 to 80 letters, digits, dots, dashes or underscores)`);
  return `persist:client-${clientId}`;
}

/** The session of a context with no run behind it: in memory only, and its policy allows nothing. */
export const UNBOUND_PARTITION = 'portal-desk-unbound';

export class RunBindings {
  private queue: Promise<unknown> = Promise.resolve();
  private pending: RunBinding | undefined;
  private readonly byContext = new Map<string, RunBinding>();

  /**
   * Runs `start` (the service's startRun) with `binding` offered to the next new context, after
   * any start already in progress has finished. The offer is withdrawn when `start` settles.
   */
  starting<T>(binding: RunBinding | undefined, start: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.pending = binding;
      try {
        return await start();
      } finally {
        this.pending = undefined;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The binding of `contextId`: the one it claimed before, else the one on offer now (claimed), else none. */
  claim(contextId: string): RunBinding | undefined {
    const known = this.byContext.get(contextId);
    if (known) return known;
    const offered = this.pending;
    if (!offered) return undefined;
    this.pending = undefined;
    this.byContext.set(contextId, offered);
    return offered;
  }

  /** The context closed: its binding is forgotten. */
  release(contextId: string): void {
    this.byContext.delete(contextId);
  }
}
