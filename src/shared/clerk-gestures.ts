import { valueNotApproved, type CarriedValue, type ControlSubmission } from './control-submission';
import { sameEndpoint } from './endpoint';

/**
 * What the clerk's own hand aimed at while they hold a run's portal (a take-over). Each click or
 * key that activates a control is noted with what that control sends (a link's address, a submit
 * button's form with its address and values, the form a text box submits on Enter), read from the
 * page before the input is played into it. A commit request is the clerk's own only when it goes
 * to that address carrying exactly those values, within a few seconds of the gesture, and each
 * gesture answers for one request.
 *
 * So a page script that posts on a timer, or that posts when the clerk clicks something else
 * (a checkbox, the page body), is not the clerk's: the commit gate asks about it as it asks about
 * any request the page sends on its own. Nor is the clerk's own click once the page rewrote what
 * it sends as they pressed (a link's query, a form's field, on mousedown or on submit).
 */

/** How long after the gesture its request may start: a form posts within milliseconds; a slow page within seconds. */
const GESTURE_MS = 10_000;

interface Gesture {
  controls: readonly ControlSubmission[];
  at: number;
}

export class ClerkGestures {
  private gestures: Gesture[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A click or key of the clerk's, with what its target sends (nothing: it sends nothing by itself). */
  note(controls: readonly ControlSubmission[]): void {
    this.drop();
    if (controls.length > 0) this.gestures.push({ controls: [...controls], at: this.now() });
  }

  /** True, once, when a recent gesture aimed at a control that sends this request as it is: the request is the clerk's own. */
  claim(url: string, carried: readonly CarriedValue[]): boolean {
    this.drop();
    const index = this.gestures.findIndex((g) => g.controls.some((c) => sameEndpoint(c.url, url) && valueNotApproved(c, carried) === null));
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
