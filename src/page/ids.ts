import { attr } from './text';

/** The document or open shadow root an element's ids are looked up in. */
export function rootOf(el: Element): Document | ShadowRoot {
  const r = el.getRootNode();
  return r instanceof ShadowRoot ? r : el.ownerDocument;
}

export function byId(el: Element, id: string): Element | null {
  try {
    return rootOf(el).querySelector('#' + CSS.escape(id));
  } catch {
    return null;
  }
}

/** The elements an id-list attribute (aria-labelledby, list, …) names, in its root, missing ones left out. */
export function idRefs(el: Element, name: string): Element[] {
  const value = attr(el, name);
  if (!value) return [];
  const out: Element[] = [];
  for (const id of value.split(/\s+/)) {
    const target = id ? byId(el, id) : null;
    if (target) out.push(target);
  }
  return out;
}
