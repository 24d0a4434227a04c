/** Whitespace (zero-width spaces and soft hyphens too) folded to one space, trimmed, cut at `max` with an ellipsis. */
export function clean(s: string | null | undefined, max = 200): string {
  const t = (s || '').replace(/[\s\u200b\u00ad]+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

/** An element's rendered text (innerText, else textContent), cleaned. */
export function textOf(el: Element, max = 200): string {
  return clean((el as HTMLElement).innerText ?? el.textContent, max);
}

export function attr(el: Element, name: string): string | null {
  return el.getAttribute(name);
}
