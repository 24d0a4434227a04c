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
