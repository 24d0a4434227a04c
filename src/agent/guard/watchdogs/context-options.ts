import type { BrowserContextOptions } from 'playwright-core';
import type { PortalProfile } from '../../../shared/portal-profile';

/**
 * The browser context Portal Desk runs a portal in: nothing saved to disk by the page, no
 * permissions, no service workers (they would fetch outside the page's request routing and
 * outlive it) unless the profile says the portal needs them (`needsServiceWorkers`), the page's own security policy kept, certificate errors not ignored, and a
 * fixed window size so runs and screenshots compare. `baseURL` lets code open portal paths
 * relative to the profile's start page. The egress lock (a proxy) is not here: it is a running
 * server, added by `openGuardedContext`, which a run's context is always opened with.
 */
export function contextOptionsFor(profile: PortalProfile): BrowserContextOptions {
  return {
    acceptDownloads: false,
    permissions: [],
    serviceWorkers: profile.needsServiceWorkers ? 'allow' : 'block',
    bypassCSP: false,
    ignoreHTTPSErrors: false,
    javaScriptEnabled: true,
    offline: false,
    locale: 'en-IN',
    viewport: { width: 1280, height: 900 },
    screen: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    hasTouch: false,
    isMobile: false,
    colorScheme: 'light',
    reducedMotion: 'reduce',
    baseURL: profile.startUrl,
  };
}
