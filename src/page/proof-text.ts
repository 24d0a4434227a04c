import { readablyShown, styleCache } from './visibility';

/**
 * The page side of the proof check (src/agent/portal/proof.ts): the first of `texts` that no
 * readably shown text node of the page contains (case-insensitive), or null when each is seen.
 */
export function firstUnseenText(texts: string[]): string | null {
  const styleOf = styleCache();
  for (const text of texts) {
    const wanted = text.toLowerCase();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let found = false;
    for (let node = walker.nextNode() as Text | null; node && !found; node = walker.nextNode() as Text | null) {
      if ((node.textContent ?? '').toLowerCase().includes(wanted) && readablyShown(node, styleOf)) found = true;
    }
    if (!found) return text;
  }
  return null;
}
