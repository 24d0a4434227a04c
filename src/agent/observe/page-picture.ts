import type { CDPSession, Frame, Page } from 'playwright-core';

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
 * does) is added to each frame and open shadow root just before the capture and removed after it.
 * A whole-page picture (once per gated step) goes through `page.screenshot` with the same sheet.
 */
const SECRET_BOXES = 'input[type=password i], input[autocomplete="one-time-code" i]';
const SECRET_BOXES_PAINTED_OVER = `${SECRET_BOXES} {
  color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important;
  background: #ff00ff !important;
}`;
const CARET_HIDDEN = '* { caret-color: transparent !important; }';

type Clip = { x: number; y: number; width: number; height: number };

/** A PNG of the page, password and code boxes painted over: the viewport, or the whole page (cut at `clip` when given). */
export async function maskedScreenshot(page: Page, options: { timeout: number; fullPage?: boolean; clip?: Clip }): Promise<Buffer> {
  if (options.fullPage || options.clip) return page.screenshot({ type: 'png', ...options, style: `${SECRET_BOXES_PAINTED_OVER}\n${CARET_HIDDEN}` });
  return withTimeout(viewportPicture(page), options.timeout, `picture not taken within ${options.timeout} ms`);
}

/** Each page's CDP session for its pictures, opened at its first picture. */
const sessions = new WeakMap<Page, Promise<CDPSession>>();

async function viewportPicture(page: Page): Promise<Buffer> {
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
    session.catch(() => sessions.delete(page));
  }
  const cdp = await session;
  const mark = `m${Math.random().toString(36).slice(2)}`;
  const frames = page.frames();
  const painting = Promise.allSettled(frames.map((frame) => frame.evaluate(paintOver, { mark, sheet: SECRET_BOXES_PAINTED_OVER, caret: CARET_HIDDEN, boxes: SECRET_BOXES })));
  try {
    // Every frame must be painted over before the capture: a frame that cannot be (it is navigating, or gone) fails the picture.
    const failed = (await painting).find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true }).catch((err: unknown) => {
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

/** In the page: the sheet into the document and every open shadow root that holds a secret box; the caret hidden. */
function paintOver({ mark, sheet, caret, boxes }: { mark: string; sheet: string; caret: string; boxes: string }): void {
  const add = (root: Document | ShadowRoot, text: string) => {
    const style = document.createElement('style');
    style.setAttribute('data-pd-picture', mark);
    style.textContent = text;
    (root instanceof Document ? (root.head ?? root.documentElement) : root).append(style);
  };
  add(document, `${sheet}\n${caret}`);
  const roots: ShadowRoot[] = [];
  const visit = (root: Document | ShadowRoot) => {
    for (const el of Array.from(root.querySelectorAll('*'))) if (el.shadowRoot) roots.push(el.shadowRoot);
  };
  visit(document);
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i]!;
    visit(root);
    if (root.querySelector(boxes)) add(root, sheet);
  }
}

async function unpaint(frame: Frame, mark: string): Promise<void> {
  await frame
    .evaluate((mark) => {
      const roots: (Document | ShadowRoot)[] = [document];
      for (let i = 0; i < roots.length; i++) {
        for (const el of Array.from(roots[i]!.querySelectorAll('*'))) if (el.shadowRoot) roots.push(el.shadowRoot);
        for (const style of Array.from(roots[i]!.querySelectorAll(`style[data-pd-picture="${mark}"]`))) style.remove();
      }
    }, mark)
    .catch(() => undefined);
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
