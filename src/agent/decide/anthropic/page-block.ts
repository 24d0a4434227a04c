import type { Control, Observation } from '../../../shared/observation';

/**
 * The page as the model reads it: a compact text rendering of an observation inside an
 * untrusted block. Everything inside the block came from the web page and is data only.
 *
 * Format (one control a line; lab/messages-api parses it back):
 *
 *   <untrusted_page_content>
 *   url: https://portal.example/apply/address
 *   title: Business address
 *   flow step: Step 2 of 4: Business address
 *   headings: Business address | Where is the shop?
 *   errors:
 *   - [Postcode] Enter a valid postcode
 *   text:
 *   …visible text…
 *   controls:
 *   r4c12 textbox "Business name" = "Acme" required invalid
 *   r4c13 combobox "District" options=["North","South"] selected="North"
 *   r4c14 checkbox "I confirm" unchecked group="Declaration"
 *   r4c15 button "Submit application" gated
 *   r4c16 link "Back" href="/apply/details"
 *   </untrusted_page_content>
 *
 * Said once, not twice (the model pays per token): a text line that only repeats a control's
 * name (a label, with or without its required-marker `*`), a heading or the flow step is left
 * out of `text:`, since the line that says it is there already; an href on the page's own
 * origin is written as its path, one on another origin in full, and a button's href that is the
 * page itself (a form posting back) is left out; `type=` is left out where it repeats the role
 * (a radio of type radio); an empty value is left out (no `=` means empty); a list of options
 * equal to an earlier control's says `options=same_as:r4c13`; a line that only repeats a control's
 * group (the question a radio answers, said as group="…" on its controls) is left out too.
 *
 * A final-review page ("Check your answers") with a "Change <label>" link per row is said as its
 * rows, once each, `- label: value`, under one line per form page the rows are changed on
 * (`[changed at /apply/owner]`); the per-row Change links and the label each repeats are left out.
 * The rows are found from the page's own Change links; when the text does not line up with them
 * (a row missing, a layout not seen before) the page is said as any other, so nothing is lost.
 */

export const UNTRUSTED_OPEN = '<untrusted_page_content>';
export const UNTRUSTED_CLOSE = '</untrusted_page_content>';

/** Options listed per control before the rest is summarised as a count. */
const MAX_OPTIONS = 40;
const MAX_SUMMARY_TITLE = 120;

/**
 * Page text can never close (or open) the untrusted block: every delimiter-like tag
 * inside it is escaped (`<` becomes `&lt;`), whatever its case or spacing.
 */
export function neutraliseDelimiters(text: string): string {
  return text.replace(/<(\s*\/?\s*untrusted_page_content)/gi, '&lt;$1');
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** What a control line may refer to: the page's address, and earlier controls' option lists. */
interface RenderContext {
  pageUrl?: string;
  /** Option lists already written, by their JSON, with the ref that wrote them. */
  optionLists?: Map<string, string>;
}

/** One control line: `r4c12 textbox "Business name" = "…" required invalid`. */
export function renderControl(control: Control, context: RenderContext = {}): string {
  const parts = [control.ref, control.role || 'generic', quote(control.name)];
  if (control.inputType && control.inputType !== 'text' && control.inputType !== control.role) parts.push(`type=${control.inputType}`);
  // A password field's value never goes to the model (the observation should not carry one anyway).
  if (control.value !== undefined && control.value !== '' && control.inputType !== 'password') parts.push(`= ${quote(control.value)}`);
  if (control.checked !== undefined) parts.push(control.checked === 'mixed' ? 'mixed' : control.checked ? 'checked' : 'unchecked');
  if (control.selected !== undefined) parts.push(`selected=${quote(control.selected)}`);
  if (control.options && control.options.length > 0) {
    const list = JSON.stringify(control.options.slice(0, MAX_OPTIONS));
    const sameAs = context.optionLists?.get(list);
    if (sameAs) parts.push(`options=same_as:${sameAs}`);
    else {
      parts.push(`options=${list}`);
      context.optionLists?.set(list, control.ref);
    }
    if (control.options.length > MAX_OPTIONS) parts.push(`more_options=${control.options.length - MAX_OPTIONS}`);
  }
  if (control.required) parts.push('required');
  if (control.invalid) parts.push('invalid');
  if (control.disabled) parts.push('disabled');
  if (control.gated) parts.push('gated');
  if (control.nameSource === 'inferred') parts.push('name_inferred');
  if (control.nameSource === 'none') parts.push('unnamed');
  if (control.group) parts.push(`group=${quote(control.group)}`);
  if (control.section) parts.push(`person=${quote(control.section.name || `block ${control.section.ordinal}`)}#${control.section.ordinal}`);
  if (control.expects) parts.push(`expects=${quote(control.expects)}`);
  if (control.href) {
    const local = localHref(control.href, context.pageUrl);
    if (!(control.role === 'button' && local?.thisPage)) parts.push(`href=${quote(local?.path ?? control.href)}`);
  }
  if (control.frameUrl) parts.push(`frame=${quote(control.frameUrl)}`);
  return parts.join(' ');
}

/**
 * An href on the page's own origin: its path (with query and fragment), and whether it is the
 * page itself (a form posting back to it). Null for another origin, an address hiding a user
 * name, or one that does not parse: those are written in full.
 */
function localHref(href: string, pageUrl: string | undefined): { path: string; thisPage: boolean } | null {
  if (!pageUrl) return null;
  try {
    const target = new URL(href);
    const page = new URL(pageUrl);
    if (target.origin !== page.origin || target.username || target.password) return null;
    return { path: `${target.pathname}${target.search}${target.hash}`, thisPage: target.pathname === page.pathname && target.search === page.search };
  } catch {
    return null;
  }
}

/** For comparing a text line with the names said elsewhere: case, spacing and a trailing required-marker do not count. */
function sameWords(text: string): string {
  return text
    .replace(/\s*[*✱]\s*$/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The page text without the lines that only repeat a control's name or group, a heading or the flow step. */
export function textToSay(observation: Observation): string {
  const said = new Set([...observation.controls.flatMap((c) => [c.name, c.group ?? '']), ...observation.headings, observation.flowStep ?? ''].map(sameWords));
  said.delete('');
  return observation.text
    .split('\n')
    .filter((line) => !said.has(sameWords(line)))
    .join('\n');
}

/** A per-row link of a final-review page: "Change Business name" (the label is what follows the verb). */
const ROW_LINK = /^(?:change|edit|amend)\s+(.+)$/i;
/** The link's own text on the page, without the hidden label after it. */
const LINK_WORD = /^(?:change|edit|amend)$/i;
/** Row links a page needs before it is read as a final-review page. */
const MIN_REVIEW_ROWS = 3;

interface ReviewRow {
  label: string;
  value: string;
  /** Path of the page the row is changed on (its link's address, without the fragment). */
  changedAt: string;
  /** The person block its Change link sits in ("Partner 2"), where the page lists several people. */
  section?: string;
}

interface ReviewPage {
  /** Text lines before the first row and after the last. */
  before: string[];
  rows: ReviewRow[];
  after: string[];
  /** Refs of the per-row Change links, left out of the control list. */
  rowLinks: Set<string>;
}

/**
 * The rows of a final-review page, or null when this is not one (fewer than three "Change <label>"
 * links) or its text does not line up with its links. Each row is the text from the end of the
 * previous row up to the row's "Change" line: its first line the label (or the link's label where
 * the text holds it), the rest the value; the label the link repeats after "Change" is dropped.
 */
export function reviewPage(observation: Observation, text: string): ReviewPage | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const said = new Set(lines.map(sameWords));
  // A row's link names a label the text holds ("Change of Name on Electricity Connection", a service's own name, does not).
  const links = observation.controls.filter((c) => c.role === 'link' && said.has(sameWords(ROW_LINK.exec(c.name.trim())?.[1] ?? '')));
  if (links.length < MIN_REVIEW_ROWS) return null;
  const rows: ReviewRow[] = [];
  let before: string[] = [];
  let buffer: string[] = [];
  let k = 0;
  let repeating = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const link = links[k];
    const label = link ? ROW_LINK.exec(link.name.trim())![1]!.trim() : '';
    if (!link || !(LINK_WORD.test(line) || sameWords(line) === sameWords(link.name))) {
      buffer.push(line);
      continue;
    }
    // The lab's original layout (and GOV.UK's) repeats the label after "Change" as hidden text: every row or none.
    const repeats = LINK_WORD.test(line) && sameWords(lines[i + 1] ?? '') === sameWords(label);
    if (k === 0) repeating = repeats;
    else if (repeats !== repeating) return null;
    if (repeats) i += 1;
    const at = buffer.findIndex((l) => sameWords(l) === sameWords(label));
    const start = at >= 0 ? at : Math.max(0, buffer.length - 2);
    if (buffer.length === 0) return null;
    if (k === 0) before = buffer.slice(0, start);
    else if (start > 0) return null;
    rows.push({ label: at >= 0 ? buffer[at]! : label, value: buffer.slice(start + 1).join(' '), changedAt: pathOf(link.href, observation.url), ...(link.section ? { section: link.section.name } : {}) });
    buffer = [];
    k += 1;
  }
  if (k !== links.length) return null;
  return { before, rows, after: buffer, rowLinks: new Set(links.map((l) => l.ref)) };
}

function pathOf(href: string | undefined, pageUrl: string): string {
  if (!href) return '(no address)';
  const local = localHref(href, pageUrl);
  return local ? local.path.replace(/#.*$/, '') : href.replace(/#.*$/, '');
}

/** The review rows, once each, grouped by the page they are changed on. */
function renderReview(review: ReviewPage): string[] {
  const lines = [...review.before, 'review rows (label: value):'];
  let at: string | undefined;
  for (const row of review.rows) {
    if (row.changedAt !== at) {
      at = row.changedAt;
      lines.push(`[changed at ${at}]`);
    }
    lines.push(`- ${line(row.label)}: ${row.value === '' ? '(empty)' : line(row.value)}`);
  }
  return [...lines, ...review.after];
}

/** One-line fields stay on one line, whatever the page put in them. */
function line(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

interface RenderOptions {
  /** Say a final-review page as its rows (default true; false renders it as any page, for measuring). */
  reviewRows?: boolean;
}

/** The body of the page block (without delimiters, not yet neutralised). */
export function renderObservation(observation: Observation, options: RenderOptions = {}): string {
  const lines: string[] = [`url: ${line(observation.url)}`, `title: ${line(observation.title)}`];
  if (observation.flowStep) lines.push(`flow step: ${line(observation.flowStep)}`);
  if (observation.headings.length > 0) lines.push(`headings: ${observation.headings.map(line).join(' | ')}`);
  if (observation.errors.length > 0) {
    lines.push('errors:');
    for (const error of observation.errors) lines.push(`- ${error.field ? `[${line(error.field)}] ` : ''}${line(error.message)}`);
  }
  if (observation.hasPasswordField) lines.push('note: this page has a password field (sign-in is done by code, never by you)');
  lines.push('text:');
  const text = textToSay(observation);
  const review = options.reviewRows === false ? null : reviewPage(observation, text);
  if (review) lines.push(...renderReview(review));
  else lines.push(text.trim() === '' ? '(no text)' : text);
  if (observation.textTruncated) lines.push('[text truncated]');
  lines.push('controls:');
  if (observation.controls.length === 0) lines.push('(none)');
  const context: RenderContext = { pageUrl: observation.url, optionLists: new Map() };
  for (const control of observation.controls) if (!review?.rowLinks.has(control.ref)) lines.push(renderControl(control, context));
  if (review) lines.push(`(${review.rowLinks.size} "Change" links, one per review row, left out: go to the row's page to change it)`);
  if (observation.omittedControls > 0) lines.push(`(${observation.omittedControls} more controls not listed)`);
  if (observation.unnamedControls > 0) lines.push(`(${observation.unnamedControls} controls have no name)`);
  if (observation.frameHosts.length > 0) lines.push(`frames from: ${observation.frameHosts.join(', ')}`);
  return lines.join('\n');
}

/** Wraps page-derived text in the untrusted block, with any delimiter inside it neutralised. */
export function untrustedBlock(body: string): string {
  return `${UNTRUSTED_OPEN}\n${neutraliseDelimiters(body)}\n${UNTRUSTED_CLOSE}`;
}

/** The whole page block for the latest read. */
export function pageBlock(observation: Observation): string {
  return untrustedBlock(renderObservation(observation));
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * What an older page shrinks to: `[earlier page: "Business address — Step 2 of 4", 14 controls]`,
 * still inside the untrusted block because the title is page text.
 */
export function pageSummary(observation: Observation): string {
  const title = [observation.title, observation.flowStep].filter((part): part is string => Boolean(part && part.trim())).join(' — ');
  const controls = observation.controls.length + observation.omittedControls;
  return untrustedBlock(`[earlier page: ${quote(clip(title || observation.url, MAX_SUMMARY_TITLE))}, ${controls} controls]`);
}
