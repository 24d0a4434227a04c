import type { BrowserContext, Page } from 'playwright-core';
import { isAllowedUrl } from '../../../shared/allowed-hosts';
import type { PortalProfile } from '../../../shared/portal-profile';
import { safeSink, type GuardEventSink } from './guard-event';

/**
 * The pages Portal Desk works in. Pages open when the watchdogs are installed are work pages;
 * so is a page opened through `open()`. Any other page that appears is a pop-up.
 */
export class WorkPages {
  private readonly pages = new WeakSet<Page>();
  private opening = 0;

  constructor(context: BrowserContext) {
    for (const page of context.pages()) this.pages.add(page);
  }

  add(page: Page): void {
    this.pages.add(page);
  }

  /** Opens a work page (the pop-up watchdog lets a page that appears during this call live). */
  async open(context: BrowserContext): Promise<Page> {
    this.opening += 1;
    try {
      const page = await context.newPage();
      this.pages.add(page);
      return page;
    } finally {
      this.opening -= 1;
    }
  }

  /** Called when a page appears: true when it is, or is being opened as, a work page. */
  claim(page: Page): boolean {
    if (this.pages.has(page)) return true;
    if (this.opening > 0) {
      this.pages.add(page);
      return true;
    }
    return false;
  }
}

/** How long a new tab on the portal's addresses may wait for the run to follow it before the guard closes it. */
const UNFOLLOWED_MS = 15_000;
/** How long the guard waits for a new tab's first page to say where it is. */
const FIRST_PAGE_MS = 10_000;

/**
 * New tabs and windows the portal opened on its own addresses (a receipt, a confirmation), with
 * every lock in place, waiting for the run to follow them: the run takes each, reads and records
 * it, and closes it. One nobody takes is closed after {@link UNFOLLOWED_MS} and reported.
 */
class NewTabs {
  private readonly waiting = new Set<Page>();
  /** Tabs that appeared and have not yet said where they are (the guard decides, within FIRST_PAGE_MS). */
  private readonly deciding = new Set<Promise<void>>();

  constructor(private readonly onUnfollowed: (page: Page) => void) {}

  /** The guard is deciding about a tab that just appeared; `take` waits for it. */
  decide(decision: Promise<void>): void {
    this.deciding.add(decision);
    void decision.finally(() => this.deciding.delete(decision));
  }

  add(page: Page): void {
    this.waiting.add(page);
    page.once('close', () => this.waiting.delete(page));
    setTimeout(() => {
      if (!this.waiting.delete(page)) return;
      this.onUnfollowed(page);
    }, UNFOLLOWED_MS).unref?.();
  }

  /** The tabs waiting to be followed (once the guard has decided about those that just appeared), now the caller's to read and close. */
  async take(): Promise<Page[]> {
    await Promise.all([...this.deciding]);
    const pages = [...this.waiting].filter((p) => !p.isClosed());
    this.waiting.clear();
    return pages;
  }
}

const NEW_TABS = new WeakMap<BrowserContext, NewTabs>();

/** The new tabs waiting on a context the watchdogs guard (none: the watchdogs are not installed). */
export function newTabsOf(context: BrowserContext): NewTabs | undefined {
  return NEW_TABS.get(context);
}

interface PopupGuardOptions {
  profile: PortalProfile;
  /** Puts the page's own locks (the redirect lock) on a new tab that stays open to be followed. */
  lockPage: (page: Page) => Promise<void>;
}

/**
 * New tabs and windows (window.open, target=_blank, a form with a target). One whose page is on
 * the portal's addresses is kept, with the page locks put on it, for the run to follow and close
 * (`NewTabs`); its requests pass the same network lock, commit gate and egress lock as the work
 * page's, and the first hop of its first page, which no page lock can see yet, is left to the
 * egress lock. Any other (another host, a refused page, a blank window its opener writes into) is
 * closed at once and reported, as before.
 */
export function installPopupGuard(context: BrowserContext, report: GuardEventSink, workPages: WorkPages, options: PopupGuardOptions): () => void {
  const emit = safeSink(report);
  const close = (page: Page, url: string, why: string): void => {
    void page.close().catch(() => undefined);
    emit({ type: 'popup_closed', url, detail: `Closed a pop-up window${url && url !== 'about:blank' ? ` (${url.slice(0, 120)})` : ''}; ${why}` });
  };
  const tabs = new NewTabs((page) => close(page, page.url(), 'the run did not follow it'));
  NEW_TABS.set(context, tabs);
  const onPage = async (page: Page): Promise<void> => {
    if (workPages.claim(page)) return;
    const early = page.url();
    if (early && early !== 'about:blank' && !isAllowedUrl(early, options.profile).ok) return close(page, early, 'Portal Desk follows new tabs only on the portal’s addresses');
    await page.waitForLoadState('domcontentloaded', { timeout: FIRST_PAGE_MS }).catch(() => undefined);
    const url = page.url();
    if (page.isClosed()) return;
    if (!isAllowedUrl(url, options.profile).ok) return close(page, url, 'Portal Desk follows new tabs only on the portal’s addresses');
    try {
      await options.lockPage(page);
    } catch {
      return close(page, url, 'its page locks could not be put on it');
    }
    tabs.add(page);
  };
  const listener = (page: Page): void => tabs.decide(onPage(page));
  context.on('page', listener);
  return () => {
    context.off('page', listener);
  };
}
