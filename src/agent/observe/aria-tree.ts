/**
 * The JSON form of playwright's ai-mode aria snapshot (`page.ariaSnapshotJSON({ mode: 'ai' })`),
 * and a walk over it that lists the ref'd nodes in document order with their context.
 *
 * The snapshot is computed in playwright's isolated (utility) world, so page scripts cannot
 * tamper with how it is computed; the strings in it are still page text, i.e. untrusted.
 */

export interface AriaNode {
  role: string;
  name?: string;
  ref?: string;
  /** The only text child, when there is exactly one (for inputs: their value). */
  text?: string;
  children?: AriaChild[];
  checked?: boolean | 'mixed';
  disabled?: boolean;
  expanded?: boolean;
  invalid?: boolean | string;
  level?: number;
  pressed?: boolean | 'mixed';
  selected?: boolean;
  active?: boolean;
  /** Raw href attribute of a link. */
  url?: string;
  placeholder?: string;
  cursor?: string;
}
export type AriaChild = AriaNode | string;

/** Roles the observer lists as controls. `option` is not one: options belong to their select/listbox. */
export const CONTROL_ROLES: ReadonlySet<string> = new Set([
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'checkbox',
  'radio',
  'radiogroup',
  'switch',
  'button',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'spinbutton',
  'slider',
]);

/** Roles whose text in the snapshot is the control's value, never page prose (a password's value among them). */
export const VALUE_ROLES: ReadonlySet<string> = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'spinbutton', 'slider']);

/** Roles whose accessible name may come from their content (playwright's ai mode drops such names when the content is printed). */
export const NAME_FROM_CONTENT: ReadonlySet<string> = new Set([
  'button',
  'checkbox',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'switch',
  'tab',
  'treeitem',
  'cell',
  'heading',
]);

const GROUP_ROLES = new Set(['group', 'radiogroup']);

type Region = 'main' | 'nav' | 'banner' | 'contentinfo' | 'other';

const REGION_OF: Record<string, Region> = { main: 'main', navigation: 'nav', banner: 'banner', contentinfo: 'contentinfo' };

/** One ref'd node of the snapshot with where it sits. */
export interface RefItem {
  node: AriaNode;
  ref: string;
  /**
   * The frame the node is in: '' for the main frame, else the ref of the iframe node that holds it.
   * (Not the `fN` prefix of the ref: playwright renumbers the main frame after each navigation,
   * so its refs carry a prefix too.)
   */
  frameKey: string;
  /** Position in document order over the whole page (iframes inline). */
  order: number;
  /** Order of the last ref'd node inside this node's subtree (for "is inside" checks). */
  lastOrder: number;
  /** Name of the nearest enclosing group / radiogroup. */
  group?: string;
  region: Region;
}

interface TreeIndex {
  items: RefItem[];
  /** frameKey of a child frame -> frameKey of the frame that holds its iframe. */
  parentFrame: Map<string, string>;
}

export function collapse(text: string): string {
  return text.replace(/[\s\u200b\u00ad]+/g, ' ').trim();
}

/** The text a node shows: its strings and its children's, or its name when it prints nothing else. Values are not text. */
export function nodeText(node: AriaChild, memo?: WeakMap<AriaNode, string>): string {
  if (typeof node === 'string') return node;
  const cached = memo?.get(node);
  if (cached !== undefined) return cached;
  let text = '';
  if (!VALUE_ROLES.has(node.role)) {
    if (node.text !== undefined) text = node.text;
    else if (node.children?.length) text = collapse(node.children.map((c) => nodeText(c, memo)).join(' '));
  }
  if (!text && node.name) text = node.name;
  text = collapse(text);
  memo?.set(node, text);
  return text;
}

/** Lists the ref'd nodes in document order; iframe content sits at its iframe. */
export function indexTree(roots: readonly AriaChild[]): TreeIndex {
  const items: RefItem[] = [];
  const parentFrame = new Map<string, string>();

  const visit = (child: AriaChild, group: string | undefined, region: Region, frameKey: string): void => {
    if (typeof child === 'string') return;
    let item: RefItem | undefined;
    if (child.ref) {
      item = { node: child, ref: child.ref, frameKey, order: items.length, lastOrder: items.length, group, region };
      items.push(item);
    }
    let innerKey = frameKey;
    let innerGroup = GROUP_ROLES.has(child.role) && child.name ? collapse(child.name) : group;
    let innerRegion = REGION_OF[child.role] ?? region;
    if (child.role === 'iframe' && child.ref) {
      // A frame's content starts afresh: no group or landmark of the parent page applies inside.
      innerKey = child.ref;
      parentFrame.set(innerKey, frameKey);
      innerGroup = undefined;
      innerRegion = 'other';
    }
    for (const c of child.children ?? []) visit(c, innerGroup, innerRegion, innerKey);
    if (item) item.lastOrder = items.length - 1;
  };
  for (const root of roots) visit(root, undefined, 'other', '');
  return { items, parentFrame };
}

/** Option labels (and the selected ones) under an ARIA listbox / combobox node. */
export function optionsOf(node: AriaNode): { options: string[]; selected: string[] } {
  const options: string[] = [];
  const selected: string[] = [];
  const visit = (child: AriaChild): void => {
    if (typeof child === 'string') return;
    if (child.role === 'option') {
      const label = nodeText(child);
      options.push(label);
      if (child.selected) selected.push(label);
      return;
    }
    for (const c of child.children ?? []) visit(c);
  };
  for (const c of node.children ?? []) visit(c);
  return { options, selected };
}

/** Radios under a radiogroup node, with the checked one. */
export function radiosOf(node: AriaNode): { options: string[]; selected: string[] } {
  const options: string[] = [];
  const selected: string[] = [];
  const visit = (child: AriaChild): void => {
    if (typeof child === 'string') return;
    if (child.role === 'radio') {
      const label = collapse(child.name ?? '') || nodeText(child);
      options.push(label);
      if (child.checked === true) selected.push(label);
    }
    for (const c of child.children ?? []) visit(c);
  };
  for (const c of node.children ?? []) visit(c);
  return { options, selected };
}

/** Runtime check that playwright returned the shape this module reads. */
export function isAriaTree(value: unknown): value is AriaChild[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' || (typeof v === 'object' && v !== null && typeof (v as AriaNode).role === 'string'));
}
