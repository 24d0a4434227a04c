import type { Page } from 'playwright-core';
import { pageCall } from '../observe/page-function';
import { FIRST_UNSEEN_TEXT_SOURCE } from '../observe/page-code.generated';

/**
 * Whether each text stands visibly on the page, as a person would see it: in a rendered box of
 * readable size, inside the page (not pushed off-screen), not clipped to a pixel (the
 * "visually hidden" trick), not transparent, and not drawn in the colour of its background.
 * Hidden text never counts as proof of a submission. Answers the first text that is not seen.
 * The rules are the page code's `readablyShown` (src/page/visibility.ts).
 */
export async function firstUnseen(page: Page, texts: readonly string[]): Promise<string | null> {
  try {
    return (await page.evaluate(pageCall(FIRST_UNSEEN_TEXT_SOURCE, [...texts]))) as string | null;
  } catch {
    return texts[0] ?? null;
  }
}
