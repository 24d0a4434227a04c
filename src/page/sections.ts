import type { DomSection } from './facts';
import { idRefs } from './ids';
import { attr, clean, textOf } from './text';

/** Fields a person's block is made of (buttons are not: "Remove" and "Add another" do not make blocks unequal). */
const FIELD = 'input:not([type=hidden i]):not([type=submit i]):not([type=button i]):not([type=reset i]):not([type=image i]),select,textarea';
const HEADING = 'h1,h2,h3,h4,h5,h6,[role=heading]';
/** The walk up from a control stops here: a form or the page is no person's block. */
const STOP = new Set(['body', 'html', 'form', 'main']);
const MAX_DEPTH = 12;
const MAX_SECTIONS = 4;

/** Per-read memo of block labels and signatures (many controls share ancestors). */
interface SectionMemo {
  labels: Map<Element, string>;
  signatures: Map<Element, string>;
  headings: Element[] | null;
}

export function sectionMemo(): SectionMemo {
  return { labels: new Map(), signatures: new Map(), headings: null };
}

/**
 * A block's own label: a fieldset's legend; the aria-label or aria-labelledby of a group or
 * region; else its first heading, when that heading comes before the block's first field.
 */
function blockLabel(block: Element, memo: SectionMemo): string {
  const known = memo.labels.get(block);
  if (known !== undefined) return known;
  let label = '';
  if (block.localName === 'fieldset') {
    const legend = block.querySelector(':scope > legend');
    if (legend) label = textOf(legend, 120);
  }
  if (!label && (block.hasAttribute('aria-label') || block.hasAttribute('aria-labelledby'))) {
    label = clean(attr(block, 'aria-label')) || clean(idRefs(block, 'aria-labelledby').map((e) => textOf(e, 120)).join(' '), 120);
  }
  if (!label) {
    const heading = block.querySelector(HEADING);
    const field = block.querySelector(FIELD);
    if (heading && (!field || heading.compareDocumentPosition(field) & Node.DOCUMENT_POSITION_FOLLOWING)) label = textOf(heading, 120);
  }
  memo.labels.set(block, label);
  return label;
}

/** What a field is called inside its block, digits left out ("partner2_name" and "partner3_name" are the same question). */
function fieldWord(field: Element): string {
  const labels = (field as HTMLInputElement).labels;
  const text = labels && labels.length ? textOf(labels[0]!, 80) : clean(attr(field, 'aria-label')) || attr(field, 'name') || attr(field, 'type') || field.localName;
  return text.toLowerCase().replace(/\d+/g, '#');
}

/** The questions a block asks, in order: blocks asking the same questions are one person's each. */
function signature(block: Element, memo: SectionMemo): string {
  const known = memo.signatures.get(block);
  if (known !== undefined) return known;
  const fields = Array.from(block.querySelectorAll(FIELD)).slice(0, 30);
  const sig = fields.length ? fields.map(fieldWord).join('|') : '';
  memo.signatures.set(block, sig);
  return sig;
}

/** The block's place (from 1) among its siblings that ask the same questions, when there are two or more; else 0. */
function positionAmongEquals(block: Element, memo: SectionMemo): number {
  const parent = block.parentElement;
  if (!parent) return 0;
  const own = signature(block, memo);
  if (!own) return 0;
  let position = 0;
  let equals = 0;
  for (const sibling of Array.from(parent.children)) {
    if (sibling.localName !== block.localName || signature(sibling, memo) !== own) continue;
    equals++;
    if (sibling === block) position = equals;
  }
  return equals >= 2 ? position : 0;
}

/** The last h1–h4 before the element in document order, or null. */
function precedingHeading(el: Element, memo: SectionMemo): Element | null {
  memo.headings ??= Array.from(el.ownerDocument.querySelectorAll('h1,h2,h3,h4'));
  let found: Element | null = null;
  for (const heading of memo.headings) {
    if (heading.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) found = heading;
    else break;
  }
  return found;
}

/**
 * The blocks a control sits in, closest first: each labelled ancestor (a legend, a group's name,
 * a heading that opens it) and each ancestor that repeats among equal siblings (its position),
 * then the nearest heading before it. The observer reads a person's label and ordinal from these
 * ("Partner 2", "Second applicant", the second of two equal blocks).
 */
export function sectionsOf(el: Element, memo: SectionMemo): DomSection[] {
  const out: DomSection[] = [];
  let block = el.parentElement;
  for (let depth = 0; block && depth < MAX_DEPTH && !STOP.has(block.localName) && out.length < MAX_SECTIONS; depth++, block = block.parentElement) {
    const label = blockLabel(block, memo);
    const position = positionAmongEquals(block, memo);
    if (label || position) out.push(position ? { label, position } : { label });
  }
  const heading = precedingHeading(el, memo);
  if (heading) {
    const label = textOf(heading, 120);
    if (label && !out.some((s) => s.label === label)) out.push({ label });
  }
  return out;
}
