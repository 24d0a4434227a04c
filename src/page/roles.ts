import { idRefs } from './ids';
import { attr } from './text';

/** ARIA roles playwright recognises in a role attribute (its first valid token wins). */
export const VALID_ROLES: ReadonlySet<string> = new Set([
  'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox', 'code',
  'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document',
  'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list',
  'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup',
  'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
  'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer',
  'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
]);

const GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby', 'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];

const hasTabIndex = (el: Element): boolean => !Number.isNaN(Number(String(attr(el, 'tabindex'))));

/** Focusable without a tabindex: buttons, fields, links with an href, details. */
export function nativelyFocusable(el: Element): boolean {
  const tag = el.localName;
  if (tag === 'button' || tag === 'details' || tag === 'select' || tag === 'textarea') return true;
  if (tag === 'a' || tag === 'area') return el.hasAttribute('href');
  if (tag === 'input') return !(el as HTMLInputElement).hidden;
  return false;
}

function nativelyDisabled(el: Element): boolean {
  return ['button', 'input', 'select', 'textarea', 'option', 'optgroup'].includes(el.localName) && (el.hasAttribute('disabled') || !!el.closest('fieldset[disabled]'));
}

/** The role an element has from its tag alone (playwright's implicit roles, the ones the observer needs). */
export function implicitRole(el: Element): string | null {
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
}

/** The element's role as playwright reads it: the first valid token of `role`, else the implicit one (none/presentation yield to it on a focusable or aria-marked element). */
export function roleOf(el: Element): string | null {
  const raw = attr(el, 'role');
  let explicit: string | null = null;
  if (raw) {
    for (const token of raw.toLowerCase().split(' ')) {
      if (VALID_ROLES.has(token.trim())) {
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
}
