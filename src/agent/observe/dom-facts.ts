import type { Frame } from 'playwright-core';
import { CONTROL_ROLES } from './aria-tree';
import { pageExpression } from './page-function';

/**
 * DOM facts the aria snapshot does not carry (input type, required, the human gate, form action,
 * error texts, labels for badly marked-up fields, clickable divs), read by ONE evaluate per frame.
 *
 * The walk visits elements in the same order as playwright's aria snapshot (pre-order, slots,
 * open shadow roots, aria-owns last) and records exactly the elements the snapshot gives a ref
 * to among controls: a visible box that receives pointer events. `align.ts` then pairs the
 * two lists. Nothing is written to the page: no attributes, no globals.
 *
 * It runs in the page's main world (playwright offers no public way to evaluate in its isolated
 * world), so a hostile page could lie to it by patching DOM prototypes; it can only lie about
 * its own markup, which it controls anyway. Element identity never depends on this: refs are
 * resolved through playwright's aria refs, which live in the isolated world.
 */

export interface DomControl {
  role: string;
  tag: string;
  /** Lower-case `type` of an input. */
  type?: string;
  /** Current value; never read for password inputs. */
  value?: string;
  checked?: boolean | 'mixed';
  /** Flags are present only when true (a smaller result to carry out of the page). */
  required?: true;
  invalid?: true;
  readonly?: true;
  gated?: true;
  /** Raw href attribute of a link (resolved in Node against `baseUrl`). */
  href?: string;
  /** Raw action of a submit button's form (formaction or form action); '' = the document's own URL. */
  action?: string;
  /** Option labels of a <select>. */
  options?: string[];
  selected?: string[];
  /** Has a <label>, aria-label or aria-labelledby (a real name, not placeholder or title). */
  labelled?: true;
  placeholder?: string;
  title?: string;
  /** Label-like text from visual context (row text, column header, icon alt) for unlabelled controls. */
  inferred?: string;
  /** `name` attribute of a radio input (its group). */
  radioName?: string;
}

export interface DomClickable {
  /** Its visible text, or aria-label / title / icon alt when it has none. */
  text: string;
  gated?: true;
}

export interface DomError {
  message: string;
  /** Index in `controls` of the field the error is about, or -1. */
  control: number;
  /** Label text of the field when it is not among `controls`. */
  label?: string;
  /** Legend / radiogroup name of the field's group. */
  group?: string;
}

export interface DomFacts {
  url: string;
  /** The document's base URL, for resolving raw hrefs and actions. */
  baseUrl: string;
  title: string;
  /** Controls and iframes (role "iframe"), in snapshot order. */
  controls: DomControl[];
  clickables: DomClickable[];
  /** Error summary / role=alert items. */
  alerts: DomError[];
  /** Fields marked aria-invalid, with their error text. */
  invalid: DomError[];
  passwordFields: number;
  anyGated: boolean;
  step: { current?: string; index?: number; count?: number; valueText?: string };
}

export interface DomFactsOptions {
  controlRoles: string[];
  validRoles: string[];
}

/** ARIA roles playwright recognises in a role attribute (its first valid token wins). */
const VALID_ROLES = [
  'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox', 'code',
  'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document',
  'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list',
  'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup',
  'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
  'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer',
  'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
];

/**
 * The in-page function. Self-contained: it is serialised into the page, so it may not use
 * anything from this module's scope.
 */
function collectDomFacts(opts: DomFactsOptions): DomFacts {
  const CONTROL = new Set(opts.controlRoles);
  const VALID = new Set(opts.validRoles);
  const doc = document;
  const root: Element = doc.body || doc.documentElement;
  const styles = new Map<Element, CSSStyleDeclaration>();
  const styleOf = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  };
  const clean = (s: string | null | undefined, max = 200): string => {
    const t = (s || '').replace(/[\s\u200b\u00ad]+/g, ' ').trim();
    return t.length > max ? t.slice(0, max - 1) + '…' : t;
  };
  const textOf = (el: Element, max = 200): string => clean((el as HTMLElement).innerText ?? el.textContent, max);
  const attr = (el: Element, name: string): string | null => el.getAttribute(name);

  const GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby', 'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];
  const hasTabIndex = (el: Element): boolean => !Number.isNaN(Number(String(attr(el, 'tabindex'))));
  const nativelyFocusable = (el: Element): boolean => {
    const tag = el.localName;
    if (tag === 'button' || tag === 'details' || tag === 'select' || tag === 'textarea') return true;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href');
    if (tag === 'input') return !(el as HTMLInputElement).hidden;
    return false;
  };
  const nativelyDisabled = (el: Element): boolean =>
    ['button', 'input', 'select', 'textarea', 'option', 'optgroup'].includes(el.localName) && (el.hasAttribute('disabled') || !!el.closest('fieldset[disabled]'));
  const rootOf = (el: Element): Document | ShadowRoot => {
    const r = el.getRootNode();
    return r instanceof ShadowRoot ? r : doc;
  };
  const byId = (el: Element, id: string): Element | null => {
    try {
      return rootOf(el).querySelector('#' + CSS.escape(id));
    } catch {
      return null;
    }
  };
  const idRefs = (el: Element, name: string): Element[] => {
    const value = attr(el, name);
    if (!value) return [];
    const out: Element[] = [];
    for (const id of value.split(/\s+/)) {
      const target = id ? byId(el, id) : null;
      if (target) out.push(target);
    }
    return out;
  };

  const implicitRole = (el: Element): string | null => {
    switch (el.localName) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : null;
      case 'button':
        return 'button';
      case 'select': {
        const s = el as HTMLSelectElement;
        return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
      }
      case 'textarea':
        return 'textbox';
      case 'option':
        return 'option';
      case 'fieldset':
      case 'details':
      case 'optgroup':
        return 'group';
      case 'input': {
        const type = ((el as HTMLInputElement).type || '').toLowerCase();
        if (['email', 'search', 'tel', 'text', 'url', ''].includes(type)) {
          const list = idRefs(el, 'list')[0];
          if (list && list.localName === 'datalist') return 'combobox';
          return type === 'search' ? 'searchbox' : 'textbox';
        }
        if (type === 'hidden') return null;
        if (type === 'file') return 'button';
        const byType: Record<string, string> = { button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton', radio: 'radio', range: 'slider', reset: 'button', submit: 'button' };
        return byType[type] || 'textbox';
      }
      default:
        return null;
    }
  };
  const roleOf = (el: Element): string | null => {
    const raw = attr(el, 'role');
    let explicit: string | null = null;
    if (raw) {
      for (const token of raw.toLowerCase().split(' ')) {
        if (VALID.has(token.trim())) {
          explicit = token.trim();
          break;
        }
      }
    }
    if (!explicit) return implicitRole(el);
    if (explicit === 'none' || explicit === 'presentation') {
      const implicit = implicitRole(el);
      const conflict = GLOBAL_ARIA.some((a) => el.hasAttribute(a)) || (!nativelyDisabled(el) && (nativelyFocusable(el) || hasTabIndex(el)));
      if (conflict) return implicit;
    }
    return explicit;
  };

  /** Playwright's "box visible": style-visible and a non-empty rectangle. */
  const boxVisible = (el: Element): boolean => {
    const s = styleOf(el);
    if (s.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && boxVisible(c as Element)) return true;
        if (c.nodeType === 3 && (c.nodeValue || '').trim()) return true;
      }
      return false;
    }
    // A display:none subtree has an empty rectangle, and computed visibility is inherited, so these
    // two cover what checkVisibility() would add at a fraction of its cost.
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && s.visibility === 'visible';
  };

  // The order must be playwright's aria-snapshot order. Without open shadow roots and aria-owns
  // that is plain document order, so one native query over the candidates is enough (fast path);
  // otherwise the walk mirrors playwright's traversal (slots, shadow roots, aria-owns last).
  const owns = !!doc.querySelector('[aria-owns]');
  let shadow = false;
  const all = doc.getElementsByTagName('*');
  for (let i = 0; i < all.length && !shadow; i++) if (all[i]!.shadowRoot) shadow = true;

  const anyGated = !!doc.querySelector('[data-agent-gate="human" i]');
  const gatedOf = (el: Element): boolean => {
    if (!anyGated && !shadow) return false;
    let e: Element | null = el;
    while (e) {
      if (e.closest('[data-agent-gate="human" i]')) return true;
      const r = e.getRootNode();
      e = r instanceof ShadowRoot ? r.host : null;
    }
    return false;
  };

  const CONTROL_SELECTOR = 'input:not([type=hidden i]),select,textarea,button,a[href],label,[role=button],[role=link],[role=checkbox],[role=radio],[role=textbox],[role=combobox],[role=menuitem],[role=tab],[role=switch]';
  const STOP_CONTAINERS = new Set(['form', 'fieldset', 'body', 'table', 'section', 'main', 'article', 'dialog', 'ul', 'ol']);
  const hasControlInside = (el: Element): boolean => el.matches(CONTROL_SELECTOR) || !!el.querySelector(CONTROL_SELECTOR);

  /** Text just before the control in its row: a preceding cell, span or text node, up to 4 levels up. */
  const rowLabel = (el: Element): string => {
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
  };
  /** Header text of the table column the control's cell sits in. */
  const columnHeader = (el: Element): string => {
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
  };
  const iconName = (el: Element): string => {
    for (const img of Array.from(el.querySelectorAll('img[alt],img[title],[aria-label],[title],svg title'))) {
      const t = img.localName === 'title' ? clean(img.textContent) : clean(attr(img, 'alt') || attr(img, 'aria-label') || attr(img, 'title'));
      if (t) return t;
    }
    return '';
  };

  const formAction = (el: Element): string | undefined => {
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
  };

  const controls: DomControl[] = [];
  const clickables: DomClickable[] = [];
  const indexOf = new Map<Element, number>();
  let passwordFields = 0;

  const record = (el: Element, role: string): void => {
    const tag = el.localName;
    if (role === 'iframe') {
      controls.push(gatedOf(el) ? { role, tag, gated: true } : { role, tag });
      return;
    }
    const input = tag === 'input' ? (el as HTMLInputElement) : null;
    const type = input ? (input.type || 'text').toLowerCase() : undefined;
    const rec: DomControl = { role, tag };
    if ((input || tag === 'select' || tag === 'textarea' ? (el as HTMLInputElement).required === true : false) || attr(el, 'aria-required') === 'true') rec.required = true;
    const invalid = attr(el, 'aria-invalid');
    if (invalid && invalid !== 'false') rec.invalid = true;
    if ((input || tag === 'textarea' ? (el as HTMLInputElement).readOnly === true : false) || attr(el, 'aria-readonly') === 'true') rec.readonly = true;
    if (gatedOf(el)) rec.gated = true;
    if ((el.hasAttribute('aria-label') && !!clean(attr(el, 'aria-label'))) || el.hasAttribute('aria-labelledby') || ((el as HTMLInputElement).labels?.length ?? 0) > 0) rec.labelled = true;
    if (type) rec.type = type;
    const password = type === 'password';
    if (password) passwordFields++;
    if (!password) {
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
    indexOf.set(el, controls.length);
    controls.push(rec);
  };

  // Clickable non-controls the DOM can tell: inline handlers and tab stops. (Elements styled with
  // cursor:pointer come from the snapshot's own cursor flag, see observer.ts.)
  const HANDLER_SELECTOR = '[onclick],[onmousedown],[onmouseup],[onpointerdown],[onpointerup],[ng-click],[data-ng-click],[jsaction]';
  const NOT_CLICKABLE_TAGS = new Set(['html', 'body', 'label', 'option', 'optgroup', 'script', 'style', 'form', 'fieldset', 'legend', 'table', 'tbody', 'thead', 'tr']);
  const maybeClickable = (el: Element, role: string | null): boolean => {
    if (el.attributes.length === 0 || NOT_CLICKABLE_TAGS.has(el.localName) || (role && CONTROL.has(role))) return false;
    const handler = el.matches(HANDLER_SELECTOR);
    const tabbable = !handler && el.hasAttribute('tabindex') && Number(attr(el, 'tabindex')) >= 0 && !nativelyFocusable(el);
    if (!handler && !tabbable) return false;
    if (styleOf(el).pointerEvents === 'none' || !boxVisible(el) || hasControlInside(el)) return false;
    const text = textOf(el, 300) || clean(attr(el, 'aria-label') || attr(el, 'title')) || iconName(el);
    if (!text && !handler) return false;
    const clickable: DomClickable = { text: text.length > 200 ? text.slice(0, 199) + '…' : text };
    if (gatedOf(el)) clickable.gated = true;
    clickables.push(clickable);
    return true;
  };
  /** Records a control or a clickable; true when the element is one (its descendants are then not clickables of their own). */
  const handle = (el: Element, insideControl: boolean): boolean => {
    const isFrame = el.localName === 'iframe' || el.localName === 'frame';
    const role = isFrame ? 'iframe' : roleOf(el);
    if (isFrame || (role && CONTROL.has(role))) {
      if (boxVisible(el) && (isFrame || styleOf(el).pointerEvents !== 'none')) record(el, role!);
      return true;
    }
    return !insideControl && maybeClickable(el, role);
  };

  if (root && !owns && !shadow) {
    const open: Element[] = [];
    for (const el of Array.from(root.querySelectorAll('a,area,button,input,select,textarea,iframe,frame,[role],[tabindex],' + HANDLER_SELECTOR))) {
      while (open.length && !open[open.length - 1]!.contains(el)) open.pop();
      if (handle(el, open.length > 0)) open.push(el);
    }
  } else if (root) {
    const visited = owns ? new Set<Node>() : null;
    const visit = (node: Node, insideControl: boolean): void => {
      if (visited) {
        if (visited.has(node)) return;
        visited.add(node);
      }
      if (node.nodeType !== 1) return;
      const el = node as Element;
      const owned: Element[] = [];
      if (owns && el.hasAttribute('aria-owns')) {
        for (const id of (attr(el, 'aria-owns') || '').split(/\s+/)) {
          const o = id ? doc.getElementById(id) : null;
          if (o) owned.push(o);
        }
      }
      const inside = handle(el, insideControl) || insideControl;
      const assigned = el.localName === 'slot' ? (el as HTMLSlotElement).assignedNodes() : [];
      if (assigned.length) {
        for (const n of assigned) visit(n, inside);
      } else {
        for (let c = el.firstChild; c; c = c.nextSibling) if (!(c as Element | Text).assignedSlot) visit(c, inside);
        if (el.shadowRoot) for (let c = el.shadowRoot.firstChild; c; c = c.nextSibling) visit(c, inside);
      }
      for (const o of owned) visit(o, inside);
    };
    visit(root, false);
  }

  // Errors: summaries and alerts, then every field marked invalid.
  const looksLikeError = (e: Element): boolean => /error|invalid|alert|warn/i.test((e.id || '') + ' ' + (attr(e, 'class') || '')) || attr(e, 'role') === 'alert';
  const errorTextOf = (el: Element): string => {
    const own = idRefs(el, 'aria-errormessage');
    if (own.length) return clean(own.map((e) => textOf(e, 300)).join(' '), 300);
    const described = idRefs(el, 'aria-describedby');
    const errors = described.filter(looksLikeError);
    return clean((errors.length ? errors : described).map((e) => textOf(e, 300)).join(' '), 300);
  };
  const labelText = (el: Element): string => {
    const aria = clean(attr(el, 'aria-label'));
    if (aria) return aria;
    const by = idRefs(el, 'aria-labelledby');
    if (by.length) return clean(by.map((e) => textOf(e)).join(' '));
    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length) return textOf(labels[0]!);
    return clean(attr(el, 'placeholder') || attr(el, 'title') || attr(el, 'name'));
  };
  const groupText = (el: Element): string => {
    const group = el.closest('fieldset,[role=radiogroup],[role=group]');
    if (!group) return '';
    if (group.localName === 'fieldset') {
      const legend = group.querySelector(':scope > legend');
      if (legend) return textOf(legend);
    }
    return labelText(group);
  };
  const controlIndex = (target: Element | null): number => {
    if (!target) return -1;
    const direct = indexOf.get(target);
    if (direct !== undefined) return direct;
    for (const inner of Array.from(target.querySelectorAll('input,select,textarea,[role]'))) {
      const i = indexOf.get(inner);
      if (i !== undefined) return i;
    }
    return -1;
  };

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

  // Where the user is in a multi-step flow.
  const step: DomFacts['step'] = {};
  const current = Array.from(doc.querySelectorAll('[aria-current="step" i]')).find((e) => e.checkVisibility());
  if (current) {
    step.current = textOf(current, 120);
    const item = current.closest('li,[role=listitem]') ?? current;
    const list = item.parentElement;
    if (list) {
      const siblings = Array.from(list.children).filter((c) => c.checkVisibility());
      const at = siblings.indexOf(item);
      if (at >= 0 && siblings.length > 1) {
        step.index = at + 1;
        step.count = siblings.length;
      }
    }
  }
  const progress = Array.from(doc.querySelectorAll('[role=progressbar][aria-valuetext],progress[aria-valuetext]')).find((e) => e.checkVisibility());
  if (progress) step.valueText = clean(attr(progress, 'aria-valuetext'), 120);

  let visiblePasswords = 0;
  for (const p of Array.from(doc.querySelectorAll('input[type="password" i]'))) if (boxVisible(p)) visiblePasswords++;

  return {
    url: doc.URL,
    baseUrl: doc.baseURI,
    title: clean(doc.title, 300),
    controls,
    clickables,
    alerts,
    invalid,
    passwordFields: Math.max(passwordFields, visiblePasswords),
    anyGated,
    step,
  };
}

const OPTIONS: DomFactsOptions = { controlRoles: [...CONTROL_ROLES], validRoles: VALID_ROLES };
/**
 * The facts come back as one JSON string: playwright's value-by-value serialisation of a big
 * object costs far more than the walk itself. (Sending the source each time costs little: V8's
 * eval cache compiles it once per document; a cached function handle measured no faster.)
 */
const AS_JSON = pageExpression(collectDomFacts, OPTIONS, { asJson: true });
/** The same facts returned by value: the fallback when the page broke JSON.stringify (old libraries patch toJSON). */
const AS_VALUE = pageExpression(collectDomFacts, OPTIONS);

function parseFacts(json: unknown): DomFacts | null {
  if (typeof json !== 'string') return null;
  try {
    const value: unknown = JSON.parse(json);
    return isFacts(value) ? value : null;
  } catch {
    return null;
  }
}

function isFacts(value: unknown): value is DomFacts {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<DomFacts>;
  return (
    Array.isArray(v.controls) &&
    v.controls.every((c) => typeof c === 'object' && c !== null && typeof c.role === 'string') &&
    Array.isArray(v.clickables) &&
    Array.isArray(v.alerts) &&
    Array.isArray(v.invalid) &&
    typeof v.url === 'string' &&
    typeof v.baseUrl === 'string' &&
    typeof v.title === 'string'
  );
}

/** Reads one frame's DOM facts; null when the frame went away or did not answer in time. */
export async function readDomFacts(frame: Frame, timeoutMs: number): Promise<DomFacts | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const json = await Promise.race([frame.evaluate(AS_JSON) as Promise<unknown>, timeout]);
    if (json === null) return null;
    const parsed = parseFacts(json);
    if (parsed) return parsed;
    const value = await Promise.race([frame.evaluate(AS_VALUE) as Promise<unknown>, timeout]);
    return isFacts(value) ? value : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
