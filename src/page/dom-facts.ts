import { clickableOf, describeControl, HANDLER_SELECTOR } from './controls';
import { alertsIn, invalidFieldsIn } from './errors';
import type { DomClickable, DomControl, DomFacts, DomFactsOptions } from './facts';
import { roleOf } from './roles';
import { sectionMemo, sectionsOf } from './sections';
import { flowStep } from './step';
import { attr, clean } from './text';
import { boxVisible, styleCache } from './visibility';

/**
 * DOM facts the aria snapshot does not carry (input type, required, the human gate, form action,
 * error texts, labels for badly marked-up fields, clickable divs), read by ONE evaluate per frame.
 * The observer injects this module built to a string (scripts/build-page-code.mjs).
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
export function collectDomFacts(opts: DomFactsOptions, doc: Document = document): DomFacts {
  const CONTROL = new Set(opts.controlRoles);
  const root: Element = doc.body || doc.documentElement;
  const styleOf = styleCache();

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

  const controls: DomControl[] = [];
  const clickables: DomClickable[] = [];
  const indexOf = new Map<Element, number>();
  let passwordFields = 0;

  const memo = sectionMemo();
  const record = (el: Element, role: string): void => {
    const rec = describeControl(el, role, gatedOf(el));
    if (role === 'iframe') {
      controls.push(rec);
      return;
    }
    const sections = sectionsOf(el, memo);
    if (sections.length) rec.sections = sections;
    if (rec.type === 'password') passwordFields++;
    indexOf.set(el, controls.length);
    controls.push(rec);
  };
  /** Records a control or a clickable; true when the element is one (its descendants are then not clickables of their own). */
  const handle = (el: Element, insideControl: boolean): boolean => {
    const isFrame = el.localName === 'iframe' || el.localName === 'frame';
    const role = isFrame ? 'iframe' : roleOf(el);
    if (isFrame || (role && CONTROL.has(role))) {
      if (boxVisible(el, styleOf) && (isFrame || styleOf(el).pointerEvents !== 'none')) record(el, role!);
      return true;
    }
    if (insideControl) return false;
    const clickable = clickableOf(el, role, CONTROL, styleOf);
    if (!clickable) return false;
    clickables.push(gatedOf(el) ? { ...clickable, gated: true } : clickable);
    return true;
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

  let visiblePasswords = 0;
  for (const p of Array.from(doc.querySelectorAll('input[type="password" i]'))) if (boxVisible(p, styleOf)) visiblePasswords++;

  return {
    url: doc.URL,
    baseUrl: doc.baseURI,
    title: clean(doc.title, 300),
    controls,
    clickables,
    // Errors: summaries and alerts, then every field marked invalid.
    alerts: alertsIn(doc, controlIndex),
    invalid: invalidFieldsIn(doc, indexOf),
    passwordFields: Math.max(passwordFields, visiblePasswords),
    anyGated,
    step: flowStep(doc),
  };
}
