import { latestPage, TEXT_ROLES, type PageControl, type PageView } from './page-reader';
import { type MessageOptions, type Reply, reply } from './replies';
import type { RecordedRequest, ScriptFn } from './server';

/**
 * A scripted "model that fills and submits": for each request it reads the latest page the
 * planner sent, matches control names to case fields and answers with one `act_on_page` call:
 * - on a page showing an application number: `done` with the number as proof;
 * - else fill / select / check every control whose name matches a case field (or an alias)
 *   and does not hold the case value yet, and tick boxes matching a confirmed declaration;
 * - with nothing left to fill: click the continue button, else the submit button;
 * - with neither: `fail`.
 * It is stateless (the page tells it what is done), so it also recovers after an error tool_result.
 */

export type CaseFields = Record<string, string | boolean>;

export interface FormFillingOptions {
  /** Other labels a field goes by, as in the case file. */
  aliases?: Record<string, string[]>;
  /** Checkbox labels (or parts) the clerk confirmed. */
  declarations?: string[];
  /** Buttons that move to the next page (default: continue, next, save and continue, proceed). */
  continueButton?: RegExp;
  /** Buttons that submit (default: submit, send application, confirm and send). */
  submitButton?: RegExp;
  /** Where the application number is on the confirmation page (group 1 is the number). */
  applicationNumber?: RegExp;
  /** Adds a thinking block to every reply (to exercise the echo of thinking blocks). */
  thinking?: boolean;
  /** Usage numbers for every reply. */
  usage?: MessageOptions['usage'];
  /** Called with every decision, for tests that watch the model. */
  onDecision?: (decision: FormFillingDecision) => void;
}

export interface FormFillingDecision {
  request: RecordedRequest;
  page: PageView | null;
  input: { reasoning: string; actions: Record<string, unknown>[]; want_screenshot: boolean };
}

const DEFAULT_CONTINUE = /^(continue|next|save and continue|proceed)\b/i;
const DEFAULT_SUBMIT = /\b(submit|send application|confirm and send)\b/i;
const DEFAULT_APPLICATION_NUMBER = /\b(?:application|reference)\s+(?:number|no\.?|ref(?:erence)?)\s*(?:is|:)?\s*([A-Z0-9][A-Z0-9-]{3,})/i;

/** Labels compare without case, punctuation, underscores or "(optional)". */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/\((optional|required)\)/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const CHOICE_ROLES = new Set(['combobox', 'listbox']);

function fieldFor(label: string | undefined, fields: CaseFields, aliases: Record<string, string[]>): string | undefined {
  if (!label) return undefined;
  const wanted = normalise(label);
  return Object.keys(fields).find((field) => normalise(field) === wanted || (aliases[field] ?? []).some((alias) => normalise(alias) === wanted));
}

function fillActions(page: PageView, fields: CaseFields, options: FormFillingOptions): Record<string, unknown>[] {
  const aliases = options.aliases ?? {};
  const actions: Record<string, unknown>[] = [];
  for (const control of page.controls) {
    if (control.disabled) continue;
    const field = fieldFor(control.name, fields, aliases);
    const value = field === undefined ? undefined : fields[field];
    if (field !== undefined && typeof value === 'string') {
      if (CHOICE_ROLES.has(control.role) && control.options && control.selected !== value) actions.push({ type: 'select', ref: control.ref, field });
      else if ((TEXT_ROLES.has(control.role) || (CHOICE_ROLES.has(control.role) && !control.options)) && (control.value !== value || control.invalid)) {
        actions.push({ type: 'fill', ref: control.ref, field });
      }
    }
    if (control.role === 'checkbox' && control.checked === false) {
      if (field !== undefined && value === true) actions.push({ type: 'check', ref: control.ref, checked: true });
      else if ((options.declarations ?? []).some((declaration) => normalise(control.name).includes(normalise(declaration)))) {
        actions.push({ type: 'check', ref: control.ref, checked: true });
      }
    }
    if (control.role === 'radio' && control.checked === false) {
      const groupField = fieldFor(control.group, fields, aliases);
      const groupValue = groupField === undefined ? undefined : fields[groupField];
      if (typeof groupValue === 'string' && normalise(groupValue) === normalise(control.name)) actions.push({ type: 'click', ref: control.ref });
    }
  }
  return actions.slice(0, 12);
}

function button(page: PageView, pattern: RegExp): PageControl | undefined {
  return page.controls.find((control) => (control.role === 'button' || control.role === 'link') && !control.disabled && pattern.test(control.name));
}

/** The decision for one page (exported for tests of the helper itself). */
export function decideForPage(page: PageView | null, fields: CaseFields, options: FormFillingOptions = {}): FormFillingDecision['input'] {
  const turn = (reasoning: string, actions: Record<string, unknown>[]) => ({ reasoning, actions, want_screenshot: false });
  if (!page) return turn('No page read in the request.', [{ type: 'fail', reason: 'no page read was sent' }]);
  const pattern = options.applicationNumber ?? DEFAULT_APPLICATION_NUMBER;
  const number = [page.title, ...page.headings, page.text].map((text) => pattern.exec(text)?.[1]).find(Boolean);
  if (number) return turn(`The confirmation page shows application number ${number}.`, [{ type: 'done', proof: `Application number ${number} shown on the confirmation page` }]);
  const actions = fillActions(page, fields, options);
  if (actions.length > 0) return turn(`Filling ${actions.length} field(s) from the case on "${page.title}".`, actions);
  const next = button(page, options.continueButton ?? DEFAULT_CONTINUE);
  if (next) return turn(`Everything on "${page.title}" is filled; continuing.`, [{ type: 'click', ref: next.ref }]);
  const submit = button(page, options.submitButton ?? DEFAULT_SUBMIT);
  if (submit) return turn(`The form is complete; submitting (the clerk approves).`, [{ type: 'click', ref: submit.ref }]);
  return turn(`Nothing to fill and no way on from "${page.title}".`, [{ type: 'fail', reason: `no field to fill and no continue or submit button on "${page.title}"` }]);
}

/** The scripted model, for `startMessagesApi(formFillingModel(fields))`. */
export function formFillingModel(caseFields: CaseFields, options: FormFillingOptions = {}): ScriptFn {
  return (request: RecordedRequest): Reply => {
    const page = latestPage(request.body);
    const input = decideForPage(page, caseFields, options);
    options.onDecision?.({ request, page, input });
    const extra: MessageOptions = {};
    if (options.thinking) extra.thinking = `Looking at "${page?.title ?? 'no page'}".`;
    if (options.usage) extra.usage = options.usage;
    return reply.toolUse(input, extra);
  };
}

/** A case file as the lab's portals need it: its fields, aliases and confirmed declarations. */
export interface LabCase {
  fields: CaseFields;
  aliases: Record<string, string[]>;
  declarations: string[];
}

/** The lab portals' start-or-continue buttons, besides the usual continue words. */
const LAB_CONTINUE = /^(continue|next|save and continue|proceed|start a new application|start renewal|start name change|start a return|continue your saved draft)\b/i;

/** The scripted model for a whole lab run: from the dashboard through the form to the confirmation showing `applicationNumber`. */
export function labFormFillingModel(caseFile: LabCase, applicationNumber: RegExp, options: FormFillingOptions = {}): ScriptFn {
  return formFillingModel(caseFile.fields, {
    aliases: caseFile.aliases,
    declarations: caseFile.declarations,
    continueButton: LAB_CONTINUE,
    applicationNumber,
    ...options,
  });
}
