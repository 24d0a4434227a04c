import type { CDPSession, Frame, Page } from 'playwright-core';
import { withTimeout } from '../../base/with-timeout';
import type { PictureSheets } from '../../page/picture-sheets';
import { PICTURE_SHEETS_SOURCE } from './page-code.generated';
import { pageCall } from './page-function';

/**
 * Every picture the product keeps or shows (a step's before and after pictures, the planner's
 * screenshot, the clerk's approval card) paints over password and one-time-code boxes, in every
 * frame and open shadow root: no picture depends on what those boxes hold. A closed shadow root is
 * out of reach, as it is out of the observer's and the sign-in's: nothing of ours types there.
 *
 * The viewport picture (two or three per step) is taken through Chromium's own capture with its
 * fast PNG encoder (`optimizeForSpeed`): half the browser's CPU of Playwright's `page.screenshot`
 * (about 35 ms against 85 ms a picture at 1280×720, measured 7 December), which a run of 11 steps
 * takes 23 times. The stylesheet that paints the boxes over (and hides the caret, as Playwright
 * does) is adopted by each frame and open shadow root just before the capture and dropped after it.
 * The whole page (once per gated step) is taken the same way. Playwright's own `style` option was
 * not used: a portal's CSP that refuses inline styles refused it too, and the boxes showed.
 */
const SECRET_BOXES = 'input[type=password i], input[autocomplete="one-time-code" i]';
const SECRET_BOXES_PAINTED_OVER = `${SECRET_BOXES} {
  color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important;
  background: #ff00ff !important;
}`;
const CARET_HIDDEN = '* { caret-color: transparent !important; }';

/** The viewport as it is shown, or the whole page from its top, at most `maxHeight` CSS pixels of it. */
type Region = 'viewport' | { maxHeight: number };

/** A PNG of the page, password and code boxes painted over: the viewport, or the whole page (cut at `maxHeight` CSS pixels when given). */
export async function maskedScreenshot(page: Page, options: { timeout: number; fullPage?: boolean; maxHeight?: number }): Promise<Buffer> {
  const region = options.fullPage ? { maxHeight: options.maxHeight ?? Infinity } : 'viewport';
  return withTimeout(picture(page, region), options.timeout, `picture not taken within ${options.timeout} ms`);
}

/** Each page's CDP session for its pictures, opened at its first picture. */
const sessions = new WeakMap<Page, Promise<CDPSession>>();

async function picture(page: Page, region: Region): Promise<Buffer> {
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
    session.catch(() => sessions.delete(page));
  }
  const cdp = await session;
  const mark = `m${Math.random().toString(36).slice(2)}`;
  const frames = page.frames();
  const painting = Promise.allSettled(frames.map((frame) => paint(frame, mark, frame === page.mainFrame())));
  try {
    // Every frame with a document must be painted over before the capture: one that cannot be (it is navigating, or gone) fails the picture.
    const failed = (await painting).find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const { data } = await capture(cdp, region).catch((err: unknown) => {
      // A session whose page crashed or closed is not asked again: the next picture opens a new one.
      sessions.delete(page);
      throw err;
    });
    return Buffer.from(data, 'base64');
  } finally {
    // Also when the picture ran out of time: whatever was painted is taken off the page the clerk sees.
    void painting.then(() => Promise.all(frames.map((frame) => unpaint(frame, mark))));
  }
}

/**
 * How long an inner frame may take to answer before it counts as having no document to paint: a
 * lazy frame below the fold has none until it is scrolled to, and Playwright waits for one without
 * end (every picture of such a page ran out of time). It shows nothing either; should it load
 * after all, its sheet is dropped again at once. The top frame is always waited for.
 */
const INNER_FRAME_MS = 500;

async function paint(frame: Frame, mark: string, top: boolean): Promise<void> {
  const painted = frame.evaluate(pageCall(PICTURE_SHEETS_SOURCE, { op: 'paint', mark, sheet: SECRET_BOXES_PAINTED_OVER, caret: CARET_HIDDEN, boxes: SECRET_BOXES } satisfies PictureSheets));
  if (top) return void (await painted);
  const answered = await Promise.race([painted.then(() => true), new Promise<false>((resolve) => setTimeout(resolve, INNER_FRAME_MS, false).unref())]);
  if (!answered) void painted.then(() => unpaint(frame, mark), () => undefined);
}

/** The whole page is taken as Playwright takes a full page: beyond the viewport, in CSS pixels. */
async function capture(cdp: CDPSession, region: Region): Promise<{ data: string }> {
  if (region === 'viewport') return cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
  const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
  const clip = { x: 0, y: 0, width: Math.ceil(cssContentSize.width), height: Math.ceil(Math.min(cssContentSize.height, region.maxHeight)), scale: 1 };
  return cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true, captureBeyondViewport: true, clip });
}

/** The page side (src/page/picture-sheets.ts, built into a string: a serialised function would carry the bundler's helpers). */
async function unpaint(frame: Frame, mark: string): Promise<void> {
  await frame.evaluate(pageCall(PICTURE_SHEETS_SOURCE, { op: 'unpaint', mark } satisfies PictureSheets)).catch(() => undefined);
}
