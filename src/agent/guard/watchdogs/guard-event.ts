/**
 * What the browser watchdogs stopped, for the step's events and the audit trail. Each blocked
 * or dismissed thing is reported once, after it has been stopped.
 */
type GuardEventType =
  | 'navigation_blocked'
  | 'popup_closed'
  | 'download_blocked'
  | 'permission_denied'
  | 'dialog_dismissed'
  | 'request_blocked';

export interface GuardEvent {
  type: GuardEventType;
  /** The address involved (shortened), where there is one. */
  url?: string;
  /** One line a clerk understands: what was stopped and why. */
  detail: string;
}

export type GuardEventSink = (event: GuardEvent) => void;

const MAX_URL = 300;

/**
 * Wraps the caller's sink so that reporting can never undo a block: a throwing sink is ignored
 * (the watchdogs always stop first and report after), and long addresses are shortened.
 */
export function safeSink(sink: GuardEventSink): GuardEventSink {
  return (event) => {
    const url = event.url && event.url.length > MAX_URL ? `${event.url.slice(0, MAX_URL - 1)}…` : event.url;
    try {
      sink(url === undefined ? { type: event.type, detail: event.detail } : { ...event, url });
    } catch {
      // The sink's failure is the sink's problem; the thing it reports has already been stopped.
    }
  };
}

/** `host[:port]` of an address for a detail line, or the address itself when it has none. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url.slice(0, 60);
  } catch {
    return url.slice(0, 60);
  }
}

/**
 * The watchdogs' events held until the run that notes them exists: the watchdogs are installed,
 * and may stop things, before the run loop (or read task) is made on the page they open. Events
 * before `deliverTo` are kept in order and handed over then; later ones go straight through.
 */
export class GuardEventRelay {
  private target: { note(type: string, detail: string): void } | undefined;
  private readonly early: GuardEvent[] = [];

  readonly sink: GuardEventSink = (event) => {
    if (this.target) this.target.note(event.type, event.detail);
    else this.early.push(event);
  };

  deliverTo(target: { note(type: string, detail: string): void }): void {
    this.target = target;
    for (const event of this.early.splice(0)) target.note(event.type, event.detail);
  }
}
