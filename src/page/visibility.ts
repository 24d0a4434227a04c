/** Computed styles, read once per element per walk (getComputedStyle is the walk's main cost). */
export type StyleOf = (el: Element) => CSSStyleDeclaration;

export function styleCache(): StyleOf {
  const styles = new Map<Element, CSSStyleDeclaration>();
  return (el) => {
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  };
}

/** Playwright's "box visible": style-visible and a non-empty rectangle (display:contents looks at its children). */
export function boxVisible(el: Element, styleOf: StyleOf): boolean {
  const s = styleOf(el);
  if (s.display === 'contents') {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && boxVisible(c as Element, styleOf)) return true;
      if (c.nodeType === 3 && (c.nodeValue || '').trim()) return true;
    }
    return false;
  }
  // A display:none subtree has an empty rectangle, and computed visibility is inherited, so these
  // two cover what checkVisibility() would add at a fraction of its cost.
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && s.visibility === 'visible';
}

/** `rgb(…)`/`rgba(…)` as [r, g, b, alpha], or null for anything else (a keyword, `transparent` reads as rgba with alpha 0). */
function rgba(colour: string): [number, number, number, number] | null {
  const m = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?\)/.exec(colour);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
}

/** The colour a person sees behind `el`: the nearest mostly opaque background, else white. */
function backdrop(el: Element | null, styleOf: StyleOf): [number, number, number] {
  for (let e = el; e; e = e.parentElement) {
    const c = rgba(styleOf(e).backgroundColor);
    if (c && c[3] > 0.5) return [c[0], c[1], c[2]];
  }
  return [255, 255, 255];
}

/**
 * Whether a text node stands readably on the page, as a person would see it: its element visible
 * (`checkVisibility` with opacity and visibility), in a box of readable size inside the page (not
 * pushed off-screen), in a font of 8px or more, not transparent, not drawn in the colour of its
 * background, and no ancestor faded out, clipped to a few pixels (the "visually hidden" trick) or
 * scaled to nothing. Stricter than `boxVisible`: hidden text never counts as proof of a submission.
 */
export function readablyShown(node: Text, styleOf: StyleOf): boolean {
  const el = node.parentElement;
  if (!el) return false;
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
  const range = document.createRange();
  range.selectNodeContents(node);
  const box = range.getBoundingClientRect();
  if (box.width < 4 || box.height < 6) return false;
  const docWidth = Math.max(document.documentElement.scrollWidth, innerWidth);
  if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0 || box.left + scrollX >= docWidth) return false;
  const style = styleOf(el);
  if (parseFloat(style.fontSize) < 8) return false;
  const colour = rgba(style.color);
  if (colour) {
    if (colour[3] < 0.4) return false;
    const [r, g, b] = backdrop(el, styleOf);
    if (Math.abs(colour[0] - r) + Math.abs(colour[1] - g) + Math.abs(colour[2] - b) < 60) return false;
  }
  for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
    const s = styleOf(e);
    if (parseFloat(s.opacity) < 0.4) return false;
    const r = e.getBoundingClientRect();
    if (s.overflow !== 'visible' && (r.width < 4 || r.height < 4)) return false;
    if (s.clip && s.clip !== 'auto' && (r.width < 4 || r.height < 4 || /rect\(\s*0(px)?[ ,]+0(px)?[ ,]+0(px)?[ ,]+0(px)?\s*\)/.test(s.clip))) return false;
    if (s.clipPath && s.clipPath !== 'none' && /inset\(\s*(50|100)%|circle\(\s*0|polygon\(\s*0(px)?\s+0(px)?\s*\)/.test(s.clipPath)) return false;
    if (s.transform && /matrix\(\s*0(\.0+)?,|scale\(0\)/.test(s.transform)) return false;
  }
  return true;
}
