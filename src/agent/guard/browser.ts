import type { BrowserContext, Page } from 'playwright-core';
import type { PortalProfile } from '../../shared/portal-profile';
import { denyAllPermissions, installPermissionReports } from './watchdogs/permissions';
import { installDialogGuard } from './watchdogs/dialogs';
import { installDownloadGuard } from './watchdogs/downloads';
import { safeSink, type GuardEventSink } from './watchdogs/guard-event';
import { installNetworkLock } from './watchdogs/network-lock';
import { installPopupGuard, WorkPages } from './watchdogs/popups';
import { installRedirectLock } from './watchdogs/redirect-lock';

export { contextOptionsFor } from './watchdogs/context-options';
export type { GuardEvent, GuardEventSink, GuardEventType } from './watchdogs/guard-event';

/** The guard at the browser layer, installed on one client's context. */
export interface Watchdogs {
  /** Opens one more work page with every lock in place before it loads anything. */
  openPage(): Promise<Page>;
  /** Removes the watchdogs (closing the context does the same). */
  dispose(): Promise<void>;
}

/**
 * Installs every browser watchdog on a context made with `contextOptionsFor(profile)`, so the
 * guard holds for everything the page does, not only for the agent's own `goto`:
 * - network lock: documents (main frame and every frame) and subresources, WebSockets too, only
 *   to the portal's addresses; redirects off the portal stopped at the response;
 * - pop-ups closed (their documents refused), downloads refused, browser permissions denied,
 *   dialogs dismissed.
 * Pages already open in the context are the work pages; any page that appears later, except
 * through `openPage()`, is a pop-up. Await this before the first navigation: until it resolves
 * nothing is locked. Every stopped thing is reported to `report` after it was stopped.
 */
export async function installWatchdogs(context: BrowserContext, profile: PortalProfile, report: GuardEventSink): Promise<Watchdogs> {
  const emit = safeSink(report);
  const workPages = new WorkPages(context);
  const disposers: (() => void | Promise<void>)[] = [];

  disposers.push(installPopupGuard(context, emit, workPages));
  disposers.push(installDialogGuard(context, emit));
  disposers.push(installDownloadGuard(context, emit));
  await denyAllPermissions(context);
  await installPermissionReports(context, emit);
  // Registered last, so it runs before any other route of the context.
  disposers.push(await installNetworkLock(context, profile, emit, { isWorkPage: (page) => workPages.has(page) }));

  const lockPage = async (page: Page): Promise<void> => {
    disposers.push(await installRedirectLock(page, profile, emit));
  };
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
