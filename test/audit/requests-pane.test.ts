import { describe, expect, it } from 'vitest';
import { pathWithoutQueryValues, requestAddress, type RequestEntry } from '../../src/shared/request-log';
import type { StepEvent } from '../../src/shared/run';
import { requestsOf } from '../../src/shared/step-log';

/**
 * The requests pane as the report and the console's replay read it (src/shared/step-log.ts):
 * a step's egress-lock log as data, the commit gate's and network lock's judgements from its
 * events, the lock's own refusal lines not listed twice, Chromium's own traffic counted apart.
 */
const at = (s: number) => `2026-03-02T09:15:${String(s).padStart(2, '0')}.000Z`;
const PORTAL = 'shops.lab.portal-desk.test';

function entry(e: Partial<RequestEntry> & Pick<RequestEntry, 'method' | 'host' | 'outcome'>, s: number): RequestEntry {
  return { kind: 'http', port: 80, path: '/', rule: 'egress-lock:portal-hosts', count: 1, firstAt: at(s), lastAt: at(s), ...e };
}

const REQUESTS: RequestEntry[] = [
  entry({ method: 'GET', host: PORTAL, path: '/img/logo.png', outcome: 'sent', count: 12 }, 1),
  entry({ method: 'POST', host: PORTAL, path: '/address', outcome: 'sent' }, 5),
  // The submission the commit gate let through (its line is among the events), as the egress lock logged it.
  entry({ method: 'POST', host: PORTAL, path: '/renewal/submit', outcome: 'sent' }, 7),
  entry({ kind: 'tunnel', method: 'CONNECT', host: 'content-autofill.googleapis.com', port: 443, path: null, outcome: 'refused', reason: 'not one of the portal’s addresses', count: 4 }, 2),
  entry({ kind: 'tunnel', method: 'CONNECT', host: 'fonts.googleapis.com.evil.example', port: 443, path: null, outcome: 'refused', reason: 'not one of the portal’s addresses', count: 2 }, 3),
];

const EVENTS: StepEvent[] = [
  // The egress lock's own lines for the same refusals: its log above has them as data.
  { type: 'request_blocked', message: 'Stopped a connection to content-autofill.googleapis.com:443 at the egress lock: not one of the portal’s addresses', at: at(2) },
  { type: 'request_blocked', message: 'Stopped a connection to fonts.googleapis.com.evil.example:443 at the egress lock: not one of the portal’s addresses', at: at(3) },
  // The network lock's refusal (the page's routing, never reached the proxy) and the commit gate's judgement.
  { type: 'request_blocked', message: 'Stopped a script request to tracker.evil.example: not one of the portal’s addresses', at: at(4) },
  {
    type: 'commit_approved',
    message: `Sent POST http://${PORTAL}/renewal/submit, approved by Anna Byrne`,
    at: at(6),
    request: { method: 'POST', url: `http://${PORTAL}/renewal/submit`, outcome: 'sent', rule: 'commit-gate:submit-path' },
  },
  { type: 'signed_in', message: 'Signed in as anand-bakery', at: at(0) },
];

describe('the requests pane of a step with the egress lock’s log', () => {
  it('lists each logged request once, with its count and rule, beside the other locks’ judgements, in time order', () => {
    const pane = requestsOf(EVENTS, REQUESTS);
    expect(pane.lines.map((l) => `${l.outcome} ${l.method} ${l.url} ×${l.count} ${l.by} ${l.rule}`)).toEqual([
      `sent GET http://${PORTAL}/img/logo.png ×12 egress lock egress-lock:portal-hosts`,
      'refused CONNECT fonts.googleapis.com.evil.example:443 ×2 egress lock egress-lock:portal-hosts',
      'refused null tracker.evil.example ×1 network lock hosts',
      `sent POST http://${PORTAL}/address ×1 egress lock egress-lock:portal-hosts`,
      `sent POST http://${PORTAL}/renewal/submit ×1 commit gate commit-gate:submit-path`,
      `sent POST http://${PORTAL}/renewal/submit ×1 egress lock egress-lock:portal-hosts`,
    ]);
    // Counts are requests, repeats included, the submission once though two locks judged it; Chromium's own (4 refused tunnels) are counted apart.
    expect({ sent: pane.sent, stopped: pane.stopped, hidden: pane.hidden }).toEqual({ sent: 14, stopped: 3, hidden: 4 });
    expect(pane.lines.find((l) => l.by === 'egress lock' && l.url?.endsWith('/renewal/submit'))!.message).toMatch(/the commit gate's line is the same request$/);
    expect(pane.lines.find((l) => l.outcome === 'refused' && l.by === 'egress lock')!.message).toMatch(/^Refused \(a tunnel.*\): not one of the portal’s addresses$/);
  });

  it('a step recorded before the log existed reads the egress lock’s lines from its events, as before', () => {
    const pane = requestsOf(EVENTS);
    expect(pane.lines.map((l) => `${l.outcome} ${l.url} ${l.by}`)).toEqual([
      'refused fonts.googleapis.com.evil.example:443 egress lock',
      'refused tracker.evil.example network lock',
      `sent http://${PORTAL}/renewal/submit commit gate`,
    ]);
    expect(pane.hidden).toBe(1);
  });

  it('never hides a request the lock let through, whatever its host', () => {
    const pane = requestsOf([], [entry({ method: 'GET', host: 'forms.google.com', outcome: 'sent' }, 1)]);
    expect(pane.lines).toHaveLength(1);
    expect(pane.hidden).toBe(0);
  });
});

describe('what the log keeps of an address', () => {
  it('keeps the names of query parameters, never their values, and no fragment', () => {
    expect(pathWithoutQueryValues('/search?q=anand&page=2#top')).toBe('/search?q=…&page=…');
    expect(pathWithoutQueryValues('/collect?AMNPR6621D')).toBe('/collect?AMNPR6621D=…');
    expect(pathWithoutQueryValues('/plain')).toBe('/plain');
    expect(pathWithoutQueryValues(`/${'a'.repeat(300)}`)).toHaveLength(200);
  });

  it('reads an entry as an address', () => {
    expect(requestAddress({ kind: 'http', host: PORTAL, port: 8080, path: '/x?y=…' })).toBe(`http://${PORTAL}:8080/x?y=…`);
    expect(requestAddress({ kind: 'tunnel', host: '::1', port: 443, path: null })).toBe('[::1]:443');
  });
});
