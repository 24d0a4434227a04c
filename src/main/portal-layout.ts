/**
 * Where the portal view sits in the console window: the right-hand part, below the console's
 * top bar, so the run list and the clerk's questions stay visible on the left. Pure, for tests.
 */

interface Size {
  width: number;
  height: number;
}

interface Bounds extends Size {
  x: number;
  y: number;
}

/** Height of the console's top bar, left uncovered. */
export const TOP_BAR = 56;
/** The console's left column keeps at least this much width. */
export const MIN_CONSOLE_WIDTH = 420;
/** Share of the window's width the portal view takes when there is room. */
const PORTAL_SHARE = 0.6;

export function portalViewBounds(content: Size): Bounds {
  const width = Math.max(0, Math.min(Math.round(content.width * PORTAL_SHARE), content.width - MIN_CONSOLE_WIDTH));
  const height = Math.max(0, content.height - TOP_BAR);
  return { x: content.width - width, y: TOP_BAR, width, height };
}
