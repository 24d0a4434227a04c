import type { Locator } from 'playwright-core';

/** Longest wait for the page to draw a frame after scrolling; a hidden page draws none. */
const FRAME_WAIT_MS = 150;

/**
 * Scrolls an element into view and lets the page draw a frame before it is clicked.
 *
 * Chromium routes a click to a process by hit-test data the compositor draws. When a cross-site
 * frame (a reCAPTCHA, payment or map widget: its own process) sits above the element, a click
 * sent in the same breath as the scroll that `locator.click` does is routed by the data from
 * before the scroll: it lands in the frame's process, and the page's button never sees it.
 * Nothing fails, so a run would think it had clicked. Scrolling first and waiting for a drawn
 * frame gives the click fresh hit-test data. Measured with Debian's Chromium 150 headless.
 */
export async function bringIntoView(locator: Locator, timeout: number): Promise<void> {
  await locator.scrollIntoViewIfNeeded({ timeout });
  await locator.evaluate(
    // No named inner functions here: tsx would wrap them in a helper the page does not have.
    (_el, waitMs) =>
      new Promise<void>((resolve) => {
        setTimeout(resolve, waitMs);
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      }),
    FRAME_WAIT_MS,
    { timeout },
  );
}
