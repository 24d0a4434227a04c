import type { Control, Observation } from '../../../shared/observation';

/**
 * The page as the model reads it: a compact text rendering of an observation inside an
 * untrusted block. Everything inside the block came from the web page and is data only.
 *
 * Format (one control a line; test/support/messages-api parses it back):
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
 *   </untrusted_page_content>
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

/** One control line: `r4c12 textbox "Business name" = "…" required invalid`. */
export function renderControl(control: Control): string {
  const parts = [control.ref, control.role || 'generic', quote(control.name)];
  if (control.inputType && control.inputType !== 'text') parts.push(`type=${control.inputType}`);
  // A password field's value never goes to the model (the observation should not carry one anyway).
  if (control.value !== undefined && control.inputType !== 'password') parts.push(`= ${quote(control.value)}`);
  if (control.checked !== undefined) parts.push(control.checked === 'mixed' ? 'mixed' : control.checked ? 'checked' : 'unchecked');
  if (control.selected !== undefined) parts.push(`selected=${quote(control.selected)}`);
  if (control.options && control.options.length > 0) {
    parts.push(`options=${JSON.stringify(control.options.slice(0, MAX_OPTIONS))}`);
    if (control.options.length > MAX_OPTIONS) parts.push(`more_options=${control.options.length - MAX_OPTIONS}`);
  }
  if (control.required) parts.push('required');
  if (control.invalid) parts.push('invalid');
  if (control.disabled) parts.push('disabled');
  if (control.gated) parts.push('gated');
  if (control.nameSource === 'inferred') parts.push('name_inferred');
  if (control.nameSource === 'none') parts.push('unnamed');
  if (control.group) parts.push(`group=${quote(control.group)}`);
  if (control.href) parts.push(`href=${quote(control.href)}`);
  if (control.frameUrl) parts.push(`frame=${quote(control.frameUrl)}`);
  return parts.join(' ');
}

/** One-line fields stay on one line, whatever the page put in them. */
function line(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The body of the page block (without delimiters, not yet neutralised). */
export function renderObservation(observation: Observation): string {
  const lines: string[] = [`url: ${line(observation.url)}`, `title: ${line(observation.title)}`];
  if (observation.flowStep) lines.push(`flow step: ${line(observation.flowStep)}`);
  if (observation.headings.length > 0) lines.push(`headings: ${observation.headings.map(line).join(' | ')}`);
  if (observation.errors.length > 0) {
    lines.push('errors:');
    for (const error of observation.errors) lines.push(`- ${error.field ? `[${line(error.field)}] ` : ''}${line(error.message)}`);
  }
  if (observation.hasPasswordField) lines.push('note: this page has a password field (sign-in is done by code, never by you)');
  lines.push('text:');
  lines.push(observation.text.trim() === '' ? '(no text)' : observation.text);
  if (observation.textTruncated) lines.push('[text truncated]');
  lines.push('controls:');
  if (observation.controls.length === 0) lines.push('(none)');
  for (const control of observation.controls) lines.push(renderControl(control));
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
