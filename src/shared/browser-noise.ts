import type { StepEvent } from './run';

/**
 * (Shared so the console's renderer, which may import only src/shared, hides the same noise as
 * the HTML report; src/audit/browser-noise.ts holds the same rule and should re-export this one.
 * Here the host must END at the Google/Chromium domain: a page's request to
 * fonts.googleapis.com.evil.example is the page's, and stays in view.)
 *
 * Chromium's own background traffic (autofill, safe browsing, component updates, optimisation
 * hints...) that the egress lock refuses during a run. It is kept in the raw step log (the chain
 * covers it), but the clerk's and the auditor's view leaves it out: a refused autofill lookup is
 * not something the agent or the portal did, and shown as a red mark it reads like a failure.
 */
const BROWSER_HOSTS = /(^|[\s/.])(([a-z0-9-]+\.)*(googleapis\.com|gstatic\.com|gvt1\.com|gvt2\.com|google\.com|googleusercontent\.com|chromium\.org)(?=[\s:/'"),]|$)|chrome:\/\/|chrome-extension:\/\/|edge:\/\/)/i;
const REQUEST_EVENTS = new Set(['request_blocked', 'request_forbidden']);

/** A refused request the browser made on its own, not the page or the agent. */
export function isBrowserNoise(event: StepEvent): boolean {
  return REQUEST_EVENTS.has(event.type) && BROWSER_HOSTS.test(event.message);
}

/** Chromium's own hosts, matched on a host name alone (the egress lock's request log keeps hosts as data). */
const BROWSER_HOST = /^([a-z0-9-]+\.)*(googleapis\.com|gstatic\.com|gvt1\.com|gvt2\.com|google\.com|googleusercontent\.com|chromium\.org)$/i;

/** A host the browser talks to on its own (autofill, safe browsing, updates): its requests are noise in a person's view. */
export function isBrowserNoiseHost(host: string): boolean {
  return BROWSER_HOST.test(host.replace(/\.$/, ''));
}

/** The events a person should see, and how many browser-internal ones were left out of view. */
export function visibleEvents(events: readonly StepEvent[]): { shown: StepEvent[]; hidden: number } {
  const shown = events.filter((e) => !isBrowserNoise(e));
  return { shown, hidden: events.length - shown.length };
}
