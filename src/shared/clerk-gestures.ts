import { sameEndpoint } from './endpoint';

/**
 * What the clerk's own hand aimed at while they hold a run's portal (a take-over). Each click or
 * key that activates a control is noted with the addresses that control names (a link's href, a
 * submit button's form action, the form a text box submits on Enter), read from the page before
 * the input is played into it. A commit request is the clerk's own only when it goes to one of
 * those addresses within a few seconds of the gesture, and each gesture answers for one request.
 *
 * So a page script that posts on a timer, or that posts when the clerk clicks something else
 * (a checkbox, the page body), is not the clerk's: the commit gate asks about it as it asks about
 * any request the page sends on its own.
 */

/** How long after the gesture its request may start: a form posts within milliseconds; a slow page within seconds. */
const GESTURE_MS = 10_000;

interface Gesture {
  addresses: readonly string[];
  at: number;
}

export class ClerkGestures {
  private gestures: Gesture[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A click or key of the clerk's, with the addresses its target names (none: it sends nothing by itself). */
  note(addresses: readonly string[]): void {
    this.drop();
    if (addresses.length > 0) this.gestures.push({ addresses: [...addresses], at: this.now() });
  }

  /** True, once, when a recent gesture aimed at this address: the request is the clerk's own. */
  claim(url: string): boolean {
    this.drop();
    const index = this.gestures.findIndex((g) => g.addresses.some((a) => sameEndpoint(a, url)));
    if (index < 0) return false;
    this.gestures.splice(index, 1);
    return true;
  }

  /** Forgets every gesture (the take-over ended). */
  clear(): void {
    this.gestures = [];
  }

  private drop(): void {
    const since = this.now() - GESTURE_MS;
    this.gestures = this.gestures.filter((g) => g.at >= since);
  }
}
