import type { Page } from 'playwright-core';
import { pageExpression } from '../observe/page-function';

/**
 * Whether each text stands visibly on the page, as a person would see it: in a rendered box of
 * readable size, inside the page (not pushed off-screen), not clipped to a pixel (the
 * "visually hidden" trick), not transparent, and not drawn in the colour of its background.
 * Hidden text never counts as proof of a submission. Answers the first text that is not seen.
 */
export async function firstUnseen(page: Page, texts: readonly string[]): Promise<string | null> {
  try {
    return (await page.evaluate(pageExpression(pageFirstUnseen, [...texts]))) as string | null;
  } catch {
    return texts[0] ?? null;
  }
}

/** Runs in the page. Self-contained: no closure over module code. */
function pageFirstUnseen(texts: string[]): string | null {
  const rgb = (colour: string): [number, number, number, number] | null => {
    const m = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?\)/.exec(colour);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  };
  const background = (el: Element | null): [number, number, number] => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0.5) return [c[0], c[1], c[2]];
    }
    return [255, 255, 255];
  };
  const seen = (node: Text): boolean => {
    const el = node.parentElement;
    if (!el) return false;
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width < 4 || box.height < 6) return false;
    const docWidth = Math.max(document.documentElement.scrollWidth, innerWidth);
    if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0 || box.left + scrollX >= docWidth) return false;
    const style = getComputedStyle(el);
    if (parseFloat(style.fontSize) < 8) return false;
    const colour = rgb(style.color);
    if (colour) {
      if (colour[3] < 0.4) return false;
      const [r, g, b] = background(el);
      if (Math.abs(colour[0] - r) + Math.abs(colour[1] - g) + Math.abs(colour[2] - b) < 60) return false;
    }
    for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (parseFloat(s.opacity) < 0.4) return false;
      const r = e.getBoundingClientRect();
      if (s.overflow !== 'visible' && (r.width < 4 || r.height < 4)) return false;
      if (s.clip && s.clip !== 'auto' && (r.width < 4 || r.height < 4 || /rect\(\s*0(px)?[ ,]+0(px)?[ ,]+0(px)?[ ,]+0(px)?\s*\)/.test(s.clip))) return false;
      if (s.clipPath && s.clipPath !== 'none' && /inset\(\s*(50|100)%|circle\(\s*0|polygon\(\s*0(px)?\s+0(px)?\s*\)/.test(s.clipPath)) return false;
      if (s.transform && /matrix\(\s*0(\.0+)?,|scale\(0\)/.test(s.transform)) return false;
    }
    return true;
  };
  for (const text of texts) {
    const wanted = text.toLowerCase();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let found = false;
    for (let node = walker.nextNode() as Text | null; node && !found; node = walker.nextNode() as Text | null) {
      if ((node.textContent ?? '').toLowerCase().includes(wanted) && seen(node)) found = true;
    }
    if (!found) return text;
  }
  return null;
}
