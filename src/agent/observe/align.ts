import { collapse, type RefItem } from './aria-tree';
import type { DomClickable, DomControl } from './dom-facts';

/**
 * Pairs the snapshot's ref'd controls with the DOM walk's records of one frame.
 *
 * Both lists come from the same document in the same order, so on a page that did not change
 * between the two reads they are equal element for element (checked by role, checked state and
 * value). When they differ (the page changed in between, or a visibility rule disagrees) the
 * longest common subsequence of compatible pairs is used, and controls left unpaired get no DOM
 * facts; the observer then treats them conservatively (no value, gated if the frame has a gate).
 */

const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const TEXT_VALUE = new Set(['textbox', 'searchbox', 'spinbutton']);
/** Beyond this many cells the alignment falls back to a greedy walk. */
const MAX_DP_CELLS = 4_000_000;

function compatible(item: RefItem, dom: DomControl): boolean {
  const node = item.node;
  if (node.role !== dom.role) return false;
  if (CHECKABLE.has(node.role) && dom.checked !== undefined) {
    const snap = node.checked === true || node.checked === 'mixed' ? node.checked : false;
    if (snap !== dom.checked) return false;
  }
  if (TEXT_VALUE.has(node.role) && dom.value !== undefined && (dom.tag === 'input' || dom.tag === 'textarea')) {
    const snap = collapse(node.text ?? '');
    const value = collapse(dom.value);
    // ai mode drops a value that only repeats the name
    if (snap !== value && !(snap === '' && (value === '' || value === collapse(node.name ?? '')))) return false;
  }
  return true;
}

/** For each snapshot item, the index of its DOM record, or -1. */
export function alignControls(items: readonly RefItem[], dom: readonly DomControl[]): number[] {
  const n = items.length;
  const m = dom.length;
  if (n === m && items.every((item, i) => compatible(item, dom[i]!))) return items.map((_, i) => i);
  if (n * m > MAX_DP_CELLS) return greedy(items, dom);

  // Longest common subsequence over compatible pairs.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
      const take = compatible(items[i]!, dom[j]!) ? table[(i + 1) * width + j + 1]! + 1 : 0;
      table[i * width + j] = Math.max(skip, take);
    }
  }
  const result = new Array<number>(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (compatible(items[i]!, dom[j]!) && table[i * width + j] === table[(i + 1) * width + j + 1]! + 1) {
      result[i] = j;
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return result;
}

function greedy(items: readonly RefItem[], dom: readonly DomControl[]): number[] {
  const result = new Array<number>(items.length).fill(-1);
  let j = 0;
  for (let i = 0; i < items.length && j < dom.length; i++) {
    for (let k = j; k < Math.min(dom.length, j + 8); k++) {
      if (compatible(items[i]!, dom[k]!)) {
        result[i] = k;
        j = k + 1;
        break;
      }
    }
  }
  return result;
}

const fold = (s: string) => collapse(s).toLowerCase();

/**
 * Pairs clickable non-control elements found in the DOM (onclick, tabindex, pointer cursor) with
 * ref'd snapshot nodes by their text, in order; of nested nodes with the same text the innermost wins.
 * Returns, for each clickable, the index into `candidates` or -1.
 */
export function alignClickables(clickables: readonly DomClickable[], candidates: readonly { item: RefItem; text: string }[]): number[] {
  const result: number[] = [];
  let from = 0;
  for (const click of clickables) {
    const want = fold(click.text);
    let found = -1;
    if (want) {
      for (let k = from; k < candidates.length; k++) {
        const have = fold(candidates[k]!.text);
        if (have === want || (want.length >= 4 && have.length <= want.length + 4 && have.includes(want))) {
          found = k;
          break;
        }
      }
    }
    if (found >= 0) {
      // Prefer the innermost of nested nodes showing the same text.
      while (found + 1 < candidates.length) {
        const outer = candidates[found]!;
        const inner = candidates[found + 1]!;
        if (inner.item.order > outer.item.lastOrder || fold(inner.text) !== fold(outer.text)) break;
        found++;
      }
      from = found + 1;
    }
    result.push(found);
  }
  return result;
}
