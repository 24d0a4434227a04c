import type { Locator } from 'playwright-core';

/** Longest wait for the page to draw a frame after scrolling; a hidden page draws none. */
const FRAME_WAIT_MS = 150;

/**
 * Brings an element fully into view, and lets the page draw a frame, before it is clicked.
 *
 * Chromium routes a click to a process by hit-test data the compositor draws. When a cross-site
 * frame (a reCAPTCHA, payment or map widget: its own process) sits above the element, a click
 * sent in the same breath as the scroll that `locator.click` does is routed by the data from
 * before the scroll: it lands in the frame's process, and the page's button never sees it.
 * Nothing fails, so a run would think it had clicked. Scrolling here and waiting for a drawn
 * frame gives the click fresh hit-test data. An element already in view costs one round trip
 * and no wait. Seen with Debian's Chromium 150 headless (test/agent/act/executor.test.ts).
 */
export async function bringIntoView(locator: Locator, timeout: number): Promise<void> {
  await locator.evaluate(
    // No named inner functions here: tsx would wrap them in a helper the page does not have.
    (el, waitMs) => {
      const box = el.getBoundingClientRect();
      const inView = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
      if (inView) return undefined;
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return new Promise<void>((resolve) => {
        setTimeout(resolve, waitMs);
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      });
    },
    FRAME_WAIT_MS,
    { timeout },
  );
}
