import type { DomError } from './facts';
import { idRefs } from './ids';
import { attr, clean, textOf } from './text';

/** Index in the walk's controls of an element (or the first control inside it), or -1. */
export type ControlIndex = (target: Element | null) => number;

const looksLikeError = (e: Element): boolean => /error|invalid|alert|warn/i.test((e.id || '') + ' ' + (attr(e, 'class') || '')) || attr(e, 'role') === 'alert';

/** A field's error text: its aria-errormessage, else the error-looking (or any) aria-describedby targets. */
export function errorTextOf(el: Element): string {
  const own = idRefs(el, 'aria-errormessage');
  if (own.length) return clean(own.map((e) => textOf(e, 300)).join(' '), 300);
  const described = idRefs(el, 'aria-describedby');
  const errors = described.filter(looksLikeError);
  return clean((errors.length ? errors : described).map((e) => textOf(e, 300)).join(' '), 300);
}

/** A field's name for an error: aria-label, aria-labelledby, its first label, else placeholder, title or name. */
export function labelText(el: Element): string {
  const aria = clean(attr(el, 'aria-label'));
  if (aria) return aria;
  const by = idRefs(el, 'aria-labelledby');
  if (by.length) return clean(by.map((e) => textOf(e)).join(' '));
  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) return textOf(labels[0]!);
  return clean(attr(el, 'placeholder') || attr(el, 'title') || attr(el, 'name'));
}

/** The legend or name of the fieldset / radiogroup / group the field sits in. */
export function groupText(el: Element): string {
  const group = el.closest('fieldset,[role=radiogroup],[role=group]');
  if (!group) return '';
  if (group.localName === 'fieldset') {
    const legend = group.querySelector(':scope > legend');
    if (legend) return textOf(legend);
  }
  return labelText(group);
}

/** Error summaries and alerts: one entry per visible list item (linked to its field by `#id`), else the box's text. */
export function alertsIn(doc: Document, controlIndex: ControlIndex): DomError[] {
  const alerts: DomError[] = [];
  const alertRoots: Element[] = [];
  for (const box of Array.from(doc.querySelectorAll('[role=alert],[role=alertdialog],.error-summary,.govuk-error-summary,.validation-summary-errors,[class*="error-summary"]'))) {
    if (alertRoots.some((r) => r.contains(box)) || !box.checkVisibility()) continue;
    alertRoots.push(box);
    const items = Array.from(box.querySelectorAll('li')).filter((li) => li.checkVisibility());
    if (items.length) {
      for (const li of items) {
        const message = textOf(li, 300);
        if (!message) continue;
        const link = li.querySelector('a[href*="#"]');
        const hash = link ? (attr(link, 'href') || '').split('#')[1] : '';
        let target: Element | null = null;
        if (hash) {
          try {
            target = doc.getElementById(decodeURIComponent(hash));
          } catch {
            target = null;
          }
        }
        const entry: DomError = { message, control: controlIndex(target) };
        if (target) {
          entry.label = labelText(target);
          const group = groupText(target);
          if (group) entry.group = group;
        }
        alerts.push(entry);
      }
    } else {
      const message = textOf(box, 300);
      if (message) alerts.push({ message, control: -1 });
    }
  }
  return alerts;
}

/** Every visible field marked aria-invalid (or in a visible fieldset), with its own or its group's error text. */
export function invalidFieldsIn(doc: Document, indexOf: ReadonlyMap<Element, number>): DomError[] {
  const invalid: DomError[] = [];
  for (const el of Array.from(doc.querySelectorAll('[aria-invalid]:not([aria-invalid="false" i])'))) {
    if (!el.checkVisibility() && !(el.closest('fieldset') && el.closest('fieldset')!.checkVisibility())) continue;
    let message = errorTextOf(el);
    if (!message) {
      const group = el.closest('fieldset,[role=radiogroup],[role=group]');
      if (group) message = errorTextOf(group);
    }
    const entry: DomError = { message, control: indexOf.get(el) ?? -1, label: labelText(el) };
    const group = groupText(el);
    if (group) entry.group = group;
    invalid.push(entry);
  }
  return invalid;
}
