import { collapse, nodeText, VALUE_ROLES, type AriaChild, type AriaNode } from './aria-tree';

/**
 * The page's visible text and headings, taken from the aria snapshot (so no extra page round
 * trip): main content first, navigation left out, control values never included.
 */

const BLOCK_ROLES = new Set([
  'heading', 'paragraph', 'listitem', 'list', 'row', 'table', 'rowgroup', 'generic', 'group', 'radiogroup', 'alert', 'alertdialog',
  'status', 'form', 'region', 'main', 'article', 'dialog', 'banner', 'contentinfo', 'complementary', 'blockquote', 'figure',
  'iframe', 'separator', 'tabpanel', 'note', 'log', 'document', 'definition', 'term', 'caption',
]);
/** Roles whose subtree is left out of the text: navigation boilerplate, option lists. */
const SKIP_ROLES = new Set(['navigation', 'option', 'menu', 'menubar', 'tablist']);
/** Containers whose name (a legend, a caption, a dialog title) is not printed among their children. */
const NAMED_CONTAINERS = new Set(['group', 'radiogroup', 'region', 'dialog', 'alertdialog', 'form', 'figure', 'table', 'tabpanel', 'complementary', 'alert', 'status']);
/** Control names are listed with the controls; they would only spend the budget twice. */
const QUIET_ROLES = new Set(['button', 'checkbox', 'radio', 'switch', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider']);

interface PageText {
  /** Lines of visible text in reading order, main content first. */
  lines: string[];
  /** Headings h1–h3 of the main frame. */
  headings: string[];
}

export function readPageText(roots: readonly AriaChild[]): PageText {
  const memo = new WeakMap<AriaNode, string>();
  const mainLines: string[] = [];
  const otherLines: string[] = [];
  const headings: string[] = [];
  let current: string[] = [];
  let sink = otherLines;

  const flush = (): void => {
    const line = collapse(current.join(' '));
    current = [];
    if (line) sink.push(line);
  };

  const visit = (child: AriaChild, inFrame: boolean, inMain: boolean): void => {
    if (typeof child === 'string') {
      current.push(child);
      return;
    }
    if (child.role === 'heading' && !inFrame && (child.level ?? 2) <= 3) {
      const text = collapse(child.name ?? '') || nodeText(child, memo);
      if (text) headings.push(text);
    }
    // Controls are listed with their names; their insides (an icon's alt text) would only repeat them.
    if (SKIP_ROLES.has(child.role) || VALUE_ROLES.has(child.role) || QUIET_ROLES.has(child.role)) return;
    if (child.role === 'main' && !inMain && !inFrame) {
      // Main content goes first: write it to its own list.
      flush();
      const outer = sink;
      sink = mainLines;
      visitChildren(child, inFrame, true);
      flush();
      sink = outer;
      return;
    }
    const block = BLOCK_ROLES.has(child.role);
    if (block) flush();
    visitChildren(child, inFrame || child.role === 'iframe', inMain);
    if (block) flush();
  };
  const visitChildren = (node: AriaNode, inFrame: boolean, inMain: boolean): void => {
    if (node.name && NAMED_CONTAINERS.has(node.role) && (node.text !== undefined || node.children?.length)) {
      const name = collapse(node.name);
      // Print the name unless the content starts with it (a heading that is also the dialog's name).
      if (!leadingText(node).startsWith(name)) {
        flush();
        current.push(name);
        flush();
      }
    }
    if (node.text !== undefined) current.push(node.text);
    else if (node.children?.length) for (const c of node.children) visit(c, inFrame, inMain);
    else if (node.name) current.push(node.name);
  };

  for (const root of roots) visit(root, false, false);
  flush();
  return { lines: [...mainLines, ...otherLines], headings };
}

/** The first text a node prints (its first string or the name of its first child), cheaply. */
function leadingText(node: AriaNode): string {
  if (node.text !== undefined) return collapse(node.text);
  for (const child of node.children ?? []) {
    if (typeof child === 'string') {
      const text = collapse(child);
      if (text) return text;
      continue;
    }
    const text = child.name ? collapse(child.name) : leadingText(child);
    if (text) return text;
  }
  return '';
}

/** Joins lines up to `budget` characters, cutting at a word boundary where one is near. */
export function fitText(lines: readonly string[], budget: number): { text: string; truncated: boolean } {
  const full = lines.join('\n');
  if (full.length <= budget) return { text: full, truncated: false };
  let cut = full.slice(0, Math.max(0, budget - 1));
  const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  if (boundary > budget * 0.8) cut = cut.slice(0, boundary);
  return { text: `${cut.trimEnd()}…`, truncated: true };
}

const STEP_LINE = /\bstep\s+(\d{1,2})\s*(?:of|\/)\s*(\d{1,2})\b\s*[:.\-–—]?\s*(.*)$/i;

interface StepFacts {
  current?: string;
  index?: number;
  count?: number;
  valueText?: string;
}

/** "Step 2 of 4: Business address" from a "Step N of M" line, an aria-current="step" item, or a progress bar. */
export function findFlowStep(lines: readonly string[], step: StepFacts | undefined): string | null {
  const current = step?.current ? collapse(step.current.replace(/^\s*\d{1,2}\s*[.)]\s*/, '')).slice(0, 100) : '';
  for (const line of lines) {
    const match = STEP_LINE.exec(line);
    if (!match) continue;
    const rest = collapse(match[3] ?? '');
    const title = rest && rest.length <= 100 ? rest : current;
    return `Step ${match[1]} of ${match[2]}${title ? `: ${title}` : ''}`;
  }
  if (current) return step?.index && step.count ? `Step ${step.index} of ${step.count}: ${current}` : current;
  if (step?.valueText) return step.valueText;
  return null;
}
