/**
 * One run per client and portal at a time in this console, whoever starts it (the clerk's Start
 * run, a queue, the office queue): two runs would share one portal account and could both submit.
 * A clerk's own start is refused while the slot is held; a queued case waits for it.
 */
export class ClientSlots {
  /** slot → the run holding it ('' while it starts). */
  private readonly held = new Map<string, string>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly releases = new Set<() => void>();

  static keyOf(c: { clientId: string; portal: string }): string {
    return `${c.clientId}\u0000${c.portal}`;
  }

  /** The run holding the slot (`''` while it starts), or undefined when free. */
  holder(key: string): string | undefined {
    return this.held.get(key);
  }

  /** Takes the slot when free; false when another run holds it. */
  tryClaim(key: string, runId = ''): boolean {
    if (this.held.has(key)) return false;
    this.held.set(key, runId);
    return true;
  }

  /** Takes the slot, waiting for the run holding it to end. */
  async claim(key: string, runId = ''): Promise<void> {
    while (!this.tryClaim(key, runId)) {
      await new Promise<void>((wake) => {
        const list = this.waiting.get(key) ?? [];
        list.push(wake);
        this.waiting.set(key, list);
      });
    }
  }

  /** Names the run holding a slot once its id is known. */
  name(key: string, runId: string): void {
    if (this.held.has(key)) this.held.set(key, runId);
  }

  release(key: string): void {
    this.held.delete(key);
    const next = this.waiting.get(key)?.shift();
    if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
    next?.();
    for (const listener of [...this.releases]) listener();
  }

  /** Told after any slot comes free (a queue looks again at the cases that waited for one). */
  onRelease(listener: () => void): () => void {
    this.releases.add(listener);
    return () => this.releases.delete(listener);
  }
}
