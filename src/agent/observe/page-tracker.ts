import type { Frame, Page } from 'playwright-core';

/**
 * What the observer remembers about a page between reads: which read is the latest (older reads
 * stop resolving refs the moment a new read starts) and how often each frame has navigated (a
 * ref never resolves into a document other than the one it was read from).
 *
 * Playwright's aria refs are counters per document: after a navigation the new document numbers
 * its elements from e1 again, so "e5" alone could name a different element. Watching
 * `framenavigated` closes that gap without a page round trip. Same-document navigations that
 * only change the fragment (#section) keep refs valid; everything else, pushState included,
 * invalidates them, erring on the side of answering unknown_ref.
 */
class PageTracker {
  latestReadId: string | undefined;
  private readonly navigations = new WeakMap<Frame, number>();
  private readonly urls = new WeakMap<Frame, string>();

  constructor(page: Page) {
    for (const frame of page.frames()) this.urls.set(frame, frame.url());
    page.on('framenavigated', (frame) => this.navigated(frame));
    page.on('frameattached', (frame) => this.urls.set(frame, frame.url()));
  }

  private navigated(frame: Frame): void {
    const before = this.urls.get(frame);
    const after = frame.url();
    this.urls.set(frame, after);
    if (before !== undefined && sameDocumentFragmentChange(before, after)) return;
    this.navigations.set(frame, (this.navigations.get(frame) ?? 0) + 1);
  }

  /** A number that changes whenever the frame shows a new document. */
  generation(frame: Frame): number {
    return this.navigations.get(frame) ?? 0;
  }
}

function sameDocumentFragmentChange(before: string, after: string): boolean {
  const a = before.split('#');
  const b = after.split('#');
  return a[0] === b[0] && (a[1] ?? '') !== (b[1] ?? '') && b.length > 1;
}

const trackers = new WeakMap<Page, PageTracker>();

export function trackerFor(page: Page): PageTracker {
  let tracker = trackers.get(page);
  if (!tracker) {
    tracker = new PageTracker(page);
    trackers.set(page, tracker);
  }
  return tracker;
}

export type { PageTracker };
