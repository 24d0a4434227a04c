import { attr, clean, textOf } from './text';

const CONTROL_SELECTOR = 'input:not([type=hidden i]),select,textarea,button,a[href],label,[role=button],[role=link],[role=checkbox],[role=radio],[role=textbox],[role=combobox],[role=menuitem],[role=tab],[role=switch]';
const STOP_CONTAINERS = new Set(['form', 'fieldset', 'body', 'table', 'section', 'main', 'article', 'dialog', 'ul', 'ol']);

/** The element is, or holds, something a user operates (a field, a button, a link, a label). */
export function hasControlInside(el: Element): boolean {
  return el.matches(CONTROL_SELECTOR) || !!el.querySelector(CONTROL_SELECTOR);
}

/** Text just before the control in its row: a preceding cell, span or text node, up to 4 levels up. */
export function rowLabel(el: Element): string {
  let node: Node = el;
  for (let level = 0; level < 4; level++) {
    for (let s = node.previousSibling; s; s = s.previousSibling) {
      if (s.nodeType === 3) {
        const t = clean(s.nodeValue, 100);
        if (t) return t;
        continue;
      }
      if (s.nodeType !== 1) continue;
      const sib = s as Element;
      if (['script', 'style', 'template', 'noscript'].includes(sib.localName)) continue;
      if (hasControlInside(sib) && sib.localName !== 'label') return '';
      if (!sib.checkVisibility()) continue;
      const t = textOf(sib, 300);
      if (t) return t.length <= 100 ? t : '';
    }
    const parent: Element | null = node.parentElement;
    if (!parent || STOP_CONTAINERS.has(parent.localName)) return '';
    if (parent.localName === 'tr') return '';
    node = parent;
  }
  return '';
}

/** Header text of the table column the control's cell sits in. */
export function columnHeader(el: Element): string {
  const cell = el.closest('td,th');
  const row = cell?.parentElement;
  const table = cell?.closest('table');
  if (!cell || !row || !table || row.localName !== 'tr') return '';
  let column = 0;
  for (const c of Array.from(row.children)) {
    if (c === cell) break;
    column += (c as HTMLTableCellElement).colSpan || 1;
  }
  const rows = Array.from((table as HTMLTableElement).rows);
  const headerRow = rows.find((r) => r !== row && r.closest('table') === table && r.querySelector('th') && rows.indexOf(r) < rows.indexOf(row as HTMLTableRowElement));
  if (!headerRow) return '';
  let at = 0;
  for (const h of Array.from(headerRow.cells)) {
    const span = h.colSpan || 1;
    if (column >= at && column < at + span) return textOf(h, 100);
    at += span;
  }
  return '';
}

/** The name an icon inside the element gives it (img alt, aria-label, title, svg title). */
export function iconName(el: Element): string {
  for (const img of Array.from(el.querySelectorAll('img[alt],img[title],[aria-label],[title],svg title'))) {
    const t = img.localName === 'title' ? clean(img.textContent) : clean(attr(img, 'alt') || attr(img, 'aria-label') || attr(img, 'title'));
    if (t) return t;
  }
  return '';
}
