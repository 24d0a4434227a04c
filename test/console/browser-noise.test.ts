import { describe, expect, it } from 'vitest';
import { visibleEvents as reportVisibleEvents } from '../../src/audit/browser-noise';
import { isBrowserNoise, visibleEvents } from '../../src/shared/browser-noise';
import type { StepEvent } from '../../src/shared/run';

const at = '2026-03-02T10:00:00.000Z';
/** A page's own request to a host that only starts like Google's: the page's traffic, never hidden. */
const LOOKALIKE: StepEvent = { type: 'request_blocked', message: 'Stopped a fetch request to fonts.googleapis.com.evil.example: not one of Shops portal’s addresses', at };
const EVENTS: StepEvent[] = [
  { type: 'request_blocked', message: 'Stopped a other request to content-autofill.googleapis.com: not one of Shops portal’s addresses', at },
  { type: 'request_blocked', message: 'Stopped a other request to safebrowsingohttpgateway.googleapis.com: not one of Shops portal’s addresses', at },
  { type: 'request_forbidden', message: 'Stopped a other request to redirector.gvt1.com: not one of Shops portal’s addresses', at },
  { type: 'request_blocked', message: 'Stopped a script request to evil.example: not one of Shops portal’s addresses', at },
  { type: 'navigation_blocked', message: 'Stopped a navigation to accounts.google.com: not one of Shops portal’s addresses', at },
  { type: 'signed_in', message: 'Signed in as anand-bakery', at },
];

/** The console's replay (src/shared) hides exactly what the HTML report (src/audit) hides. */
describe('browser background requests in the replay', () => {
  it('hides Chromium’s own refused requests and keeps the page’s and the agent’s', () => {
    const { shown, hidden } = visibleEvents([...EVENTS, LOOKALIKE]);
    expect(hidden).toBe(3);
    expect(shown.map((e) => e.message)).toEqual([
      expect.stringContaining('evil.example'),
      expect.stringContaining('navigation to accounts.google.com'),
      'Signed in as anand-bakery',
      expect.stringContaining('fonts.googleapis.com.evil.example'),
    ]);
    expect(isBrowserNoise(LOOKALIKE)).toBe(false);
    expect(isBrowserNoise(EVENTS[0]!)).toBe(true);
  });

  it('agrees with the HTML report’s filter on Chromium’s own hosts and the page’s', () => {
    expect(visibleEvents(EVENTS)).toEqual(reportVisibleEvents(EVENTS));
  });
});
