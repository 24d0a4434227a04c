import type { DomClickable, DomControl } from './facts';
import { columnHeader, hasControlInside, iconName, rowLabel } from './labels';
import { idRefs } from './ids';
import { nativelyFocusable } from './roles';
import { attr, clean, textOf } from './text';
import { boxVisible, type StyleOf } from './visibility';

/** Raw action of a submit button's form (formaction, else the form's action; '' = the document's URL); undefined for anything else. */
export function formAction(el: Element): string | undefined {
  const tag = el.localName;
  if (tag !== 'button' && tag !== 'input') return undefined;
  const type = ((el as HTMLInputElement).type || '').toLowerCase();
  const isSubmit = (tag === 'button' && type === 'submit') || (tag === 'input' && (type === 'submit' || type === 'image'));
  if (!isSubmit) return undefined;
  const form = (el as HTMLButtonElement).form;
  if (!form) return undefined;
  // getAttribute, not form.action: a field named "action" would shadow the property. Resolved in
  // Node, not with this world's URL, which page scripts can replace.
  return (attr(el, 'formaction') ?? attr(form, 'action') ?? '').trim();
}

/** What the observer needs of one control: type, value (never a password's), flags, href, form action, options, names. */
export function describeControl(el: Element, role: string, gated: boolean): DomControl {
  const tag = el.localName;
  if (role === 'iframe') return gated ? { role, tag, gated: true } : { role, tag };
  const input = tag === 'input' ? (el as HTMLInputElement) : null;
  const type = input ? (input.type || 'text').toLowerCase() : undefined;
  const rec: DomControl = { role, tag };
  if ((input || tag === 'select' || tag === 'textarea' ? (el as HTMLInputElement).required === true : false) || attr(el, 'aria-required') === 'true') rec.required = true;
  const invalid = attr(el, 'aria-invalid');
  if (invalid && invalid !== 'false') rec.invalid = true;
  if ((input || tag === 'textarea' ? (el as HTMLInputElement).readOnly === true : false) || attr(el, 'aria-readonly') === 'true') rec.readonly = true;
  if (gated) rec.gated = true;
  if ((el.hasAttribute('aria-label') && !!clean(attr(el, 'aria-label'))) || el.hasAttribute('aria-labelledby') || ((el as HTMLInputElement).labels?.length ?? 0) > 0) rec.labelled = true;
  if (type) rec.type = type;
  const ariaLabel = clean(attr(el, 'aria-label') || '');
  const ownLabel = clean(Array.from((el as HTMLInputElement).labels ?? [], (l) => textOf(l, 160)).join(' '));
  if (ariaLabel && ownLabel && ownLabel.toLowerCase() !== ariaLabel.toLowerCase()) rec.ownLabel = ownLabel.slice(0, 160);
  if (type !== 'password') {
    if (input && !['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(type!)) rec.value = input.value.slice(0, 500);
    else if (tag === 'textarea') rec.value = (el as HTMLTextAreaElement).value.slice(0, 500);
    else if ((el as HTMLElement).isContentEditable && (role === 'textbox' || role === 'searchbox')) rec.value = textOf(el, 500);
    else if ((role === 'slider' || role === 'spinbutton') && !input) rec.value = attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow') ?? undefined;
  }
  if (input && (type === 'checkbox' || type === 'radio')) rec.checked = input.indeterminate ? 'mixed' : input.checked;
  else if (el.hasAttribute('aria-checked')) {
    const v = (attr(el, 'aria-checked') || '').toLowerCase();
    rec.checked = v === 'true' ? true : v === 'mixed' ? 'mixed' : false;
  }
  if (role === 'link' && (tag === 'a' || tag === 'area')) {
    const href = attr(el, 'href');
    if (href !== null) rec.href = href.trim();
  }
  const action = formAction(el);
  if (action !== undefined) rec.action = action;
  if (tag === 'select') {
    const select = el as HTMLSelectElement;
    rec.options = Array.from(select.options, (o) => clean(o.label || o.text));
    rec.selected = Array.from(select.selectedOptions, (o) => clean(o.label || o.text));
  }
  if (input && type === 'radio' && input.name) rec.radioName = input.name;
  const placeholder = attr(el, 'placeholder') ?? attr(el, 'aria-placeholder');
  if (placeholder) rec.placeholder = clean(placeholder);
  // What the box says it expects beyond its placeholder: a length limit, a pattern, a hint tied to it.
  if (input && input.maxLength > 0 && input.maxLength < 1000) rec.maxLength = input.maxLength;
  const pattern = input ? attr(el, 'pattern') : null;
  if (pattern) rec.pattern = pattern.slice(0, 120);
  const hint = idRefs(el, 'aria-describedby')
    .filter((d) => !/error|invalid|alert/i.test(`${d.id} ${attr(d, 'class') || ''}`) && attr(d, 'role') !== 'alert')
    .map((d) => textOf(d, 160))
    .join(' ');
  if (hint) rec.hint = clean(hint).slice(0, 160);
  const title = attr(el, 'title');
  if (title) rec.title = clean(title);
  const buttonInput = !!input && ['button', 'submit', 'reset', 'image'].includes(type!);
  const formField = (!!input && !buttonInput) || tag === 'select' || tag === 'textarea' || ['textbox', 'combobox', 'listbox', 'searchbox', 'spinbutton'].includes(role);
  if (formField && !rec.labelled) {
    const inferred = rowLabel(el) || columnHeader(el);
    if (inferred) rec.inferred = inferred;
  } else if (!formField && !rec.labelled && !rec.title && !(el.textContent || '').trim() && !(buttonInput && input!.value)) {
    const inferred = iconName(el);
    if (inferred) rec.inferred = inferred;
  }
  return rec;
}

// Clickable non-controls the DOM can tell: inline handlers and tab stops. (Elements styled with
// cursor:pointer come from the snapshot's own cursor flag, see observer.ts.)
export const HANDLER_SELECTOR = '[onclick],[onmousedown],[onmouseup],[onpointerdown],[onpointerup],[ng-click],[data-ng-click],[jsaction]';
const NOT_CLICKABLE_TAGS = new Set(['html', 'body', 'label', 'option', 'optgroup', 'script', 'style', 'form', 'fieldset', 'legend', 'table', 'tbody', 'thead', 'tr']);

/** A visible element with an inline handler or a tab stop that is no control and holds none, with its text; null otherwise. */
export function clickableOf(el: Element, role: string | null, controlRoles: ReadonlySet<string>, styleOf: StyleOf): Omit<DomClickable, 'gated'> | null {
  if (el.attributes.length === 0 || NOT_CLICKABLE_TAGS.has(el.localName) || (role && controlRoles.has(role))) return null;
  const handler = el.matches(HANDLER_SELECTOR);
  const tabbable = !handler && el.hasAttribute('tabindex') && Number(attr(el, 'tabindex')) >= 0 && !nativelyFocusable(el);
  if (!handler && !tabbable) return null;
  if (styleOf(el).pointerEvents === 'none' || !boxVisible(el, styleOf) || hasControlInside(el)) return null;
  const text = textOf(el, 300) || clean(attr(el, 'aria-label') || attr(el, 'title')) || iconName(el);
  if (!text && !handler) return null;
  return { text: text.length > 200 ? text.slice(0, 199) + '…' : text };
}
