import type { BrowserContext, Page } from 'playwright-core';
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

  has(page: Page): boolean {
    return this.pages.has(page);
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

/**
 * Pop-ups (window.open, target=_blank, a form with a target) are closed as soon as they appear
 * and reported. The network lock refuses their documents whatever the address, so a pop-up
 * never loads a page; a pop-up can only show what its opener's script writes into it, and that
 * is closed too.
 */
export function installPopupGuard(context: BrowserContext, report: GuardEventSink, workPages: WorkPages): () => void {
  const emit = safeSink(report);
  const onPage = (page: Page): void => {
    if (workPages.claim(page)) return;
    const url = page.url();
    void page.close().catch(() => undefined);
    emit({ type: 'popup_closed', url, detail: `Closed a pop-up window${url && url !== 'about:blank' ? ` (${url.slice(0, 120)})` : ''}; Portal Desk works in one window` });
  };
  context.on('page', onPage);
  return () => {
    context.off('page', onPage);
  };
}
