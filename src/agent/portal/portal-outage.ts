import type { Page } from 'playwright-core';
import type { Observation } from '../../shared/observation';

const BROWSER_ERROR_PAGE = /^chrome-error:/;
const ERROR_TITLES = /^(this page isn[’']t working|this site can[’']t be reached|unable to connect|the connection has timed out|no internet|problem loading page)\b/i;
const HTTP_OUTAGE = /^(502|503|504)\b|\b(bad gateway|service (temporarily )?unavailable|gateway time-?out)\b/i;
const NET_ERROR = /\b(?:net::)?(ERR_[A-Z_]{3,60})\b/;

/**
 * The portal is not answering: the page in the tab is the browser's own error page (the request
 * failed: refused, reset, timed out, no data) or the portal's gateway said 502/503/504. Answers the
 * network error to report (`net::ERR_CONNECTION_REFUSED`, `HTTP 503 Service Unavailable`), or null.
 * Never a planner's concern: the run waits and tries again, or stops resumable.
 */
export function portalNotAnswering(page: Page, observation: Observation): string | null {
  const lines = [observation.title, ...observation.headings];
  const code = NET_ERROR.exec(observation.text)?.[1];
  if (BROWSER_ERROR_PAGE.test(page.url()) || BROWSER_ERROR_PAGE.test(observation.url) || lines.some((l) => ERROR_TITLES.test(l.trim()))) {
    return code ? `net::${code}` : 'the page did not load';
  }
  const gateway = lines.find((l) => HTTP_OUTAGE.test(l.trim()));
  if (gateway && observation.controls.length < 8) return `HTTP ${gateway.trim().slice(0, 80)}`;
  return null;
}
