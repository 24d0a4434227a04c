import { isBrowserNoise, isBrowserNoiseHost } from './browser-noise';
import { EGRESS_LOCK_WORDS, requestAddress, type RequestEntry } from './request-log';
import type { StepEvent } from './run';

/**
 * A step's event log read as the replay's and the report's panes: the requests the egress lock,
 * the network lock and the commit gate let through or refused (with the deciding rule), and the
 * page's own errors (uncaught script errors, console errors, loads that failed). Pure, so the
 * console's renderer and the HTML report read the raw log the same way. Browser-internal noise
 * (src/shared/browser-noise.ts) is counted, not listed; the raw log keeps it.
 *
 * A step recorded with the egress lock's request log (`StepRecord.requests`) lists every request
 * the lock let through or refused from that log, as data, repeats counted; the lock's own refusal
 * lines among the step's events then only say the same again and are not listed twice. Older
 * steps list what their events say.
 */

type RequestOutcome = 'sent' | 'refused' | 'denied';

interface RequestLine {
  at: string;
  outcome: RequestOutcome;
  /** What judged it: the egress lock (every connection), the network lock (the page's navigations and requests), the commit gate. */
  by: 'egress lock' | 'network lock' | 'commit gate';
  /** GET, POST, CONNECT… where known. */
  method: string | null;
  /** The address (or host) as recorded, shortened by the guard. */
  url: string | null;
  /** The deciding rule, e.g. `commit-gate:submit-path`, `egress-lock:portal-hosts`. */
  rule: string;
  /** The event's line as the guard wrote it, or what the egress lock's log says of the request. */
  message: string;
  type: string;
  /** How many identical requests the line stands for (the egress lock's log counts repeats). */
  count: number;
}

/** Step event types that are requests judged below the page, and what each means. */
const REQUEST_TYPES: Record<string, { outcome: RequestOutcome; by: RequestLine['by']; rule: string }> = {
  request_sent: { outcome: 'sent', by: 'egress lock', rule: 'egress-lock:portal-hosts' },
  request_blocked: { outcome: 'refused', by: 'egress lock', rule: 'egress-lock:portal-hosts' },
  navigation_blocked: { outcome: 'refused', by: 'network lock', rule: 'hosts' },
  request_forbidden: { outcome: 'refused', by: 'commit gate', rule: 'commit-gate:forbidden' },
  commit_refused: { outcome: 'refused', by: 'commit gate', rule: 'commit-gate' },
  commit_denied: { outcome: 'denied', by: 'commit gate', rule: 'commit-gate' },
  commit_approved: { outcome: 'sent', by: 'commit gate', rule: 'commit-gate' },
  commit_pre_approved: { outcome: 'sent', by: 'commit gate', rule: 'commit-gate' },
};

/** A `request_blocked` line the network lock wrote (the page's own routing: its requests to other hosts). */
const NETWORK_LOCK = { outcome: 'refused', by: 'network lock', rule: 'hosts' } as const;

/** Step event types that are the page's own errors. */
const PAGE_ERROR_TYPES: Readonly<Record<string, string>> = {
  page_error: 'script error',
  console_error: 'console error',
  load_failed: 'failed load',
};

const METHOD_AND_URL = /\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|UPGRADE)\s+(?:a\s+)?(?:request\s+to\s+|connection\s+to\s+|redirect\s+to\s+)?(\S+?)[,:;)]?(?:\s|$)/;

const HOST_ONLY = /\b(?:request|connection(?: upgrade)?) to ([A-Za-z0-9.-]+(?::\d+)?)(?=[\s:,;)]|$)/;

function isRequestEvent(e: StepEvent): boolean {
  return Object.hasOwn(REQUEST_TYPES, e.type);
}

function isPageErrorEvent(e: StepEvent): boolean {
  return Object.hasOwn(PAGE_ERROR_TYPES, e.type);
}

/** One request event as a line of the requests pane. */
function requestLine(e: StepEvent): RequestLine | null {
  const kind = REQUEST_TYPES[e.type];
  if (!kind) return null;
  if (e.request) {
    return { at: e.at, outcome: e.request.outcome, by: kind.by, method: e.request.method, url: e.request.url, rule: e.request.rule, message: e.message, type: e.type, count: 1 };
  }
  // Steps recorded before requests carried data: the guard's line names the method and address.
  const m = METHOD_AND_URL.exec(e.message);
  // Both locks write `request_blocked`; only the egress lock's lines say so ("… at the egress lock: …").
  const judged = e.type === 'request_blocked' && !e.message.includes(EGRESS_LOCK_WORDS) ? NETWORK_LOCK : kind;
  // The egress lock's own line names the kind of request and its host: "Stopped a script request to tracker.example: …".
  const host = m ? null : HOST_ONLY.exec(e.message);
  return { at: e.at, outcome: judged.outcome, by: judged.by, method: m?.[1] ?? null, url: m?.[2] ?? host?.[1] ?? null, rule: judged.rule, message: e.message, type: e.type, count: 1 };
}

/** One entry of the egress lock's log as a line of the requests pane. */
function entryLine(r: RequestEntry): RequestLine {
  const tunnel = r.kind === 'tunnel' ? ' (a tunnel: https or a secure socket; where the lock ends its TLS, each request in it is listed too)' : '';
  const message = r.outcome === 'sent' ? `To one of the portal's addresses${tunnel}` : `Refused${tunnel}: ${r.reason ?? r.rule}`;
  return { at: r.firstAt, outcome: r.outcome, by: 'egress lock', method: r.method, url: requestAddress(r), rule: r.rule, message, type: r.outcome === 'sent' ? 'request_sent' : 'request_blocked', count: r.count };
}

/** The egress lock's own refusal line among a step's events (its log lists the same request as data). */
function isEgressLine(e: StepEvent): boolean {
  return e.type === 'request_blocked' && !e.request && e.message.includes(EGRESS_LOCK_WORDS);
}

/**
 * The requests pane of a step: what went and what was stopped, noise counted apart (`hidden`
 * counts requests, repeats included). `sent` and `stopped` count requests too, so a line that
 * stands for 12 identical loads counts 12.
 */
export function requestsOf(events: readonly StepEvent[], requests?: readonly RequestEntry[]): { lines: RequestLine[]; hidden: number; sent: number; stopped: number } {
  const lines: RequestLine[] = [];
  let hidden = 0;
  for (const e of events) {
    if (!isRequestEvent(e)) continue;
    if (requests && isEgressLine(e)) continue;
    if (isBrowserNoise(e)) {
      hidden += 1;
      continue;
    }
    const line = requestLine(e);
    if (line) lines.push(line);
  }
  for (const r of requests ?? []) {
    // Only refused ones: what the lock let through went to the portal's own addresses.
    if (r.outcome === 'refused' && isBrowserNoiseHost(r.host)) {
      hidden += r.count;
      continue;
    }
    lines.push(entryLine(r));
  }
  lines.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const twice = sameRequestTwice(lines);
  const sent = lines.reduce((n, l) => n + (l.outcome === 'sent' ? l.count : 0), 0) - twice;
  const all = lines.reduce((n, l) => n + l.count, 0) - twice;
  return { lines, hidden, sent, stopped: all - sent };
}

/**
 * A commit the gate let through also passed the egress lock, which logged it: one request, two
 * lines. The egress line says so, and the pane's totals count it once. Answers how many such pairs.
 */
function sameRequestTwice(lines: RequestLine[]): number {
  const spare = new Map<RequestLine, number>();
  for (const l of lines) if (l.by === 'egress lock' && l.outcome === 'sent') spare.set(l, l.count);
  let pairs = 0;
  for (const gate of lines) {
    if (gate.by !== 'commit gate' || gate.outcome !== 'sent' || !gate.method || !gate.url) continue;
    for (const [egress, left] of spare) {
      if (left === 0 || egress.method !== gate.method || withoutQuery(egress.url) !== withoutQuery(gate.url)) continue;
      spare.set(egress, left - 1);
      egress.message = `${egress.message}; the commit gate's line is the same request`;
      pairs += 1;
      break;
    }
  }
  return pairs;
}

function withoutQuery(url: string | null): string {
  return (url ?? '').replace(/[?#].*$/, '');
}

/** The page errors pane of a step: script and console errors and failed loads, as recorded. */
export function pageErrorsOf(events: readonly StepEvent[]): { kind: string; message: string; at: string }[] {
  return events.filter(isPageErrorEvent).map((e) => ({ kind: PAGE_ERROR_TYPES[e.type]!, message: e.message, at: e.at }));
}

/** The events left for "what code did or saw" once requests and page errors have their own panes (noise left out). */
export function otherEvents(events: readonly StepEvent[]): StepEvent[] {
  return events.filter((e) => !isRequestEvent(e) && !isPageErrorEvent(e) && !isBrowserNoise(e));
}
