import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { PortalProfile } from '../../shared/portal-profile';
import { egressTlsOf, hostResolverRulesOf } from '../browser/chromium';
import { ChallengeHosts } from './challenge-hosts';
import type { CommitGate } from './commit-gate';
import { EgressProxy } from './egress-proxy';
import { contextOptionsFor } from './watchdogs/context-options';
import { denyAllPermissions, installPermissionReports } from './watchdogs/permissions';
import { installDialogGuard } from './watchdogs/dialogs';
import { installDownloadGuard } from './watchdogs/downloads';
import { safeSink, type GuardEventSink } from './watchdogs/guard-event';
import { installNetworkLock } from './watchdogs/network-lock';
import { installPopupGuard, WorkPages } from './watchdogs/popups';
import { installRedirectLock } from './watchdogs/redirect-lock';

export { contextOptionsFor };
export type { GuardEvent } from './watchdogs/guard-event';
export { GuardEventRelay } from './watchdogs/guard-event';

/** The egress lock of each context `openGuardedContext` made. */
const EGRESS_LOCKS = new WeakMap<BrowserContext, EgressProxy>();

/** What a caller may add to the guard's context options: the client's saved login state. */
type GuardedContextExtras = Pick<BrowserContextOptions, 'storageState'>;

/**
 * Opens the browser context of one portal run: the guard's options (`contextOptionsFor`) and the
 * egress lock, a proxy of the context's own (`EgressProxy`) that every request of the context
 * goes through, in the browser's network stack, below any document: page and frame requests,
 * workers of every kind, keepalive fetches and beacons sent as a page unloads, WebSockets, loopback
 * and IP addresses included (`<-loopback>`). It lets only the portal's addresses through (and the
 * profile's challenge hosts while the clerk holds the portal: `challengeHostsOf(context)`). The
 * proxy applies the browser's `--host-resolver-rules` (as `launchChromium` recorded them) when it
 * connects, and closes with the context. Then `installWatchdogs` reports what it refuses.
 *
 * Only a browser that creates real contexts applies the proxy. The desktop shell's in-process
 * CDP transport (`src/agent/browser/cdp-transport.ts`) makes virtual contexts and ignores it:
 * there the shell sets the same lock on each client's Electron session (`src/main/session-egress.ts`),
 * beside its `session.webRequest` lock.
 */
export async function openGuardedContext(browser: Browser, profile: PortalProfile, extras: GuardedContextExtras = {}): Promise<BrowserContext> {
  const challenges = new ChallengeHosts(profile);
  const tls = egressTlsOf(browser);
  const egress = await EgressProxy.start(profile, { hostResolverRules: hostResolverRulesOf(browser), challenges, ...(tls ? { tls } : {}) });
  let context: BrowserContext;
  try {
    context = await browser.newContext({ ...contextOptionsFor(profile), ...extras, proxy: { server: egress.url, bypass: '<-loopback>' } });
  } catch (err) {
    await egress.close();
    throw err;
  }
  EGRESS_LOCKS.set(context, egress);
  challenges.attach(context);
  context.once('close', () => void egress.close());
  return context;
}

/** The egress lock of a context `openGuardedContext` opened (its address, how much it refused). */
export function egressLockOf(context: BrowserContext): EgressProxy | undefined {
  return EGRESS_LOCKS.get(context);
}

interface WatchdogOptions {
  /**
   * Install on a context that has no egress lock (not opened with `openGuardedContext`). Only for
   * tests that try one lock alone; a run never does this.
   */
  withoutEgressLock?: boolean;
  /**
   * The run's commit gate: requests that can commit something wait for the clerk in the
   * network lock, redirects to them are refused, and the egress proxy lets one through only
   * when the network lock admitted it. Every run installs one.
   */
  gate?: CommitGate;
}

/** The guard at the browser layer, installed on one client's context. */
export interface Watchdogs {
  /** Opens one more work page with every lock in place before it loads anything. */
  openPage(): Promise<Page>;
  /** Removes the watchdogs (closing the context does the same). The egress lock stays until the context closes. */
  dispose(): Promise<void>;
}

/**
 * Installs every browser watchdog on a context made with `openGuardedContext(browser, profile)`,
 * so the guard holds for everything the page does, not only for the agent's own `goto`:
 * - egress lock (the context's proxy): its refusals are reported from here on;
 * - network lock: documents (main frame and every frame) and subresources, WebSockets too, only
 *   to the portal's addresses; redirects off the portal stopped at the response;
 * - new tabs and windows on the portal's addresses kept, locked, for the run to follow and close
 *   (`newTabsOf`); any other pop-up closed; downloads refused, browser permissions denied,
 *   dialogs dismissed.
 * Pages already open in the context are the work pages; any page that appears later, except
 * through `openPage()`, is a new tab (a pop-up). Await this before the first navigation: until it resolves
 * only the egress lock holds. Every stopped thing is reported to `report` after it was stopped.
 */
export async function installWatchdogs(context: BrowserContext, profile: PortalProfile, report: GuardEventSink, options: WatchdogOptions = {}): Promise<Watchdogs> {
  const egress = EGRESS_LOCKS.get(context);
  if (!egress && !options.withoutEgressLock) {
    throw new Error('The watchdogs need a context opened with openGuardedContext: without its egress lock, workers and requests sent as a page unloads would reach any host');
  }
  const emit = safeSink(report);
  egress?.reportTo(emit);
  if (options.gate) egress?.useGate(options.gate);
  const workPages = new WorkPages(context);
  const disposers: (() => void | Promise<void>)[] = [];

  const locked = new WeakSet<Page>();
  const lockPage = async (page: Page): Promise<void> => {
    disposers.push(await installRedirectLock(page, profile, emit, options.gate));
    locked.add(page);
  };
  disposers.push(installPopupGuard(context, emit, workPages, { profile, lockPage }));
  disposers.push(installDialogGuard(context, emit));
  disposers.push(installDownloadGuard(context, emit));
  await denyAllPermissions(context);
  await installPermissionReports(context, emit);
  // Registered last, so it runs before any other route of the context.
  disposers.push(await installNetworkLock(context, profile, emit, { gate: options.gate, isLockedPage: (page) => locked.has(page) }));

  for (const page of context.pages()) await lockPage(page);

  return {
    async openPage() {
      const page = await workPages.open(context);
      await lockPage(page);
      return page;
    },
    async dispose() {
      for (const dispose of disposers.splice(0).reverse()) await dispose();
    },
  };
}
