import type { Action, Turn } from '../../../shared/action';
import type { Control, Observation } from '../../../shared/observation';
import type { PortalProfile } from '../../../shared/portal-profile';
import { isReadBackRefusal } from '../../../shared/outcome';
import type { StepAction } from '../../../shared/run';
import { formatValue, type ValueFormat } from '../../../shared/value-format';
import { findApplicationNumber, isConfirmationPage, isFinalReviewPage } from '../../portal/page-kind';
import type { CaseView, PlanInput, PlanResult, Planner } from '../planner';
import { groupsOf } from '../../../shared/case-groups';
import { linesToFields } from '../../../shared/lookup-option';
import { caseFieldNames, FieldNames, fieldForPerson, normaliseLabel, sameText } from './field-names';
import { datePart, formatFor, retryFormats } from './format-hints';

/** Buttons and links that move a form forward, best first. Reset/clear/cancel never are. */
const CONTINUE_WORDS = [
  /^(save and )?continue( to .*)?$/,
  /^next( .*)?$/,
  /^proceed( .*)?$/,
  /^save and next$/,
  /^continue your saved draft$/,
  /^(continue|resume) (your |saved )?(draft|application)$/,
  /^start( a)?( new)? .*/,
  /^(begin|apply|new application).*$/,
];
const NEVER_PRESS = /\b(reset|clear|cancel|delete|remove|sign out|log out|logout|withdraw)\b/;
const SUBMIT = /\bsubmit\b/;
/** Other words a one-page form's own send button goes by. */
const SEND_WORDS = /^(send|apply|file|register|complete|finish|confirm|accept)\b/;
/** A button that adds one more person's block ("Add another partner", "Add a director"). */
const ADD_ANOTHER = /^add (another|a|an|one more|more|new)\b/;
/** A look-up button: it lists what the portal knows for what was typed (addresses for a postcode). */
const LOOKUP = /^(find|look ?up|search( for)?|get)( an?| the| my| your)? ?(address(es)?|postcode|pin ?code)?$|^(find|look ?up) (address|addresses|postcode)\b/;
const FILLABLE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton']);
const CHOICE_ROLES = new Set(['combobox', 'listbox']);

/**
 * The offline `rules` planner: a rule-based form filler, not AI. It fills controls whose
 * label matches a case field, ticks the declarations the case lists, presses the page's
 * continue button, proposes Submit on the review page and `done` on the confirmation page.
 */
export class RulesPlanner implements Planner {
  readonly id = 'rules';
  readonly description = 'rule-based form filler (not AI): matches field labels to the case file';
  private caseView: CaseView | undefined;
  private names: FieldNames | undefined;
  /** The case's documents by name and alias (an upload's label matches one). */
  private documents: FieldNames | undefined;
  /** Fields the clerk supplied during the run: they fill like case fields. */
  private clerkFields: Record<string, string> = {};
  private readonly seen = new Map<string, number>();
  /**
   * What was typed into each field's box so far (one text per format) and whether the page has
   * been sent since (a click followed): a refused format is not typed again, and a box still marked
   * in error before the page was sent is not yet refused.
   */
  /**
   * What was typed into each box (field|label), in order; `sent` once a click went after it;
   * `again` once its last text was typed a second time after the portal refused it.
   */
  private readonly typed = new Map<string, { texts: string[]; sent: boolean; again?: boolean; boxRefused?: string }>();
  /** The box (field|label) of each fill of the last turn, by its ref: what the executor's outcome of it speaks of. */
  private lastFills = new Map<string, string>();

  constructor(private readonly profile: PortalProfile) {}

  start(caseView: CaseView): void {
    this.caseView = caseView;
    this.names = caseFieldNames(Object.keys(caseView.fields), caseView.aliases);
    this.documents = new FieldNames(caseView.documents ?? [], caseView.aliases);
  }

  async decide(input: PlanInput): Promise<PlanResult> {
    this.learn(input.clerkFields ?? {});
    this.noteBoxRefusals(input.previous);
    this.lastFills = new Map();
    return { turn: this.plan(input.observation), call: null };
  }

  /**
   * A box that would not hold what was typed (the executor read back another text: an input mask
   * that cut it, a box that dropped it) refused that text as surely as a portal's error message:
   * the next plausible format is typed next turn, and with none left the clerk is asked.
   */
  private noteBoxRefusals(previous: readonly StepAction[]): void {
    for (const { action, outcome } of previous) {
      if (action.type !== 'fill') continue;
      const key = this.lastFills.get(action.ref);
      const entry = key === undefined ? undefined : this.typed.get(key);
      if (!entry) continue;
      if (isReadBackRefusal(outcome)) Object.assign(entry, { sent: true, boxRefused: outcome.message });
      else if (outcome.status === 'done') delete entry.boxRefused;
    }
  }

  private learn(clerkFields: Record<string, string>): void {
    const known = Object.keys(this.clerkFields);
    if (Object.keys(clerkFields).every((f) => known.includes(f) && this.clerkFields[f] === clerkFields[f])) return;
    this.clerkFields = { ...clerkFields };
    const caseView = this.caseView!;
    this.names = caseFieldNames([...Object.keys(caseView.fields), ...Object.keys(clerkFields)], caseView.aliases);
  }

  /** A click follows: what was typed goes with the page. */
  private markSent(): void {
    for (const entry of this.typed.values()) entry.sent = true;
  }

  private fieldSet(): Set<string> {
    return new Set([...Object.keys(this.caseView!.fields), ...Object.keys(this.clerkFields)]);
  }

  /** The case field a label names for this control: its person's, where the control sits in a person's block. */
  private fieldOf(label: string | undefined, control: Control): string | undefined {
    return fieldForPerson(this.names!.fieldFor(label), this.fieldSet(), control.section);
  }

  private valueOf(field: string | undefined): string | boolean | undefined {
    if (field === undefined) return undefined;
    return Object.hasOwn(this.clerkFields, field) ? this.clerkFields[field] : this.caseView!.fields[field];
  }

  private plan(observation: Observation): Turn {
    if (!this.caseView || !this.names) throw new Error('RulesPlanner.decide called before start');
    const visits = this.countVisit(observation);
    if (visits > 3) {
      const problem = observation.errors.map((e) => e.message).join('; ') || 'the page did not change';
      return turn('The same page came back four times; stopping instead of looping.', [
        { type: 'fail', reason: `Stuck on "${observation.headings[0] ?? observation.title}": ${problem}` },
      ]);
    }

    const applicationNumber = findApplicationNumber(observation, this.profile);
    if (applicationNumber) {
      return turn('The confirmation page shows the application number.', [
        { type: 'done', proof: `Application number ${applicationNumber} on the confirmation page` },
      ]);
    }
    if (isConfirmationPage(observation, this.profile)) {
      return turn('A confirmation page without an application number.', [
        { type: 'fail', reason: 'The confirmation page shows no application number' },
      ]);
    }

    if (isFinalReviewPage(observation, this.profile)) {
      // "Submit", else the page's own last button by its other wordings ("Accept and send", "Send application", "Confirm and pay").
      const submit = observation.controls.find((c) => isPressable(c) && SUBMIT.test(normaliseLabel(c.name))) ?? this.submitControl(observation);
      if (submit) return turn('Review page: propose the final submit (the clerk approves it).', [{ type: 'click', ref: submit.ref }]);
    }

    const missing = this.missingValue(observation);
    if (missing) {
      return turn(`The form requires "${missing.label}" and the case file has no such field: ask the clerk.`, [
        { type: 'ask', kind: 'missing_value', question: `The portal requires "${missing.label}", which the case file does not have. What should be entered?`, field: missing.field },
      ]);
    }

    const refused = this.refusedEveryFormat(observation);
    if (refused) {
      return turn(`The portal refused every format of "${refused.field}" tried: ask the clerk with the portal's words.`, [
        { type: 'ask', kind: 'missing_value', question: `The portal refuses ${refused.label} in every format tried (${refused.tried.map((t) => `"${t}"`).join(', ')}); it says: "${refused.message}". What should be entered?`, field: refused.field },
      ]);
    }

    const actions: Action[] = [...this.fillActions(observation)];
    const next = this.addAnotherControl(observation) ?? this.lookupControl(observation, actions) ?? this.continueControl(observation);
    if (next) actions.push({ type: 'click', ref: next.ref });
    if (actions.some((a) => a.type === 'click')) this.markSent();
    if (actions.length === 0) {
      // A one-page form: everything it can fill is filled and there is no continue button, so the
      // form's own submit button is next (it waits for the clerk's approval like any submit).
      const unfilled = this.requiredUnfilled(observation);
      if (unfilled) {
        return turn(`The form requires "${unfilled.label}" and the case file has no such field: ask the clerk.`, [
          { type: 'ask', kind: 'missing_value', question: `The portal requires "${unfilled.label}", which the case file does not have. What should be entered?`, field: unfilled.field },
        ]);
      }
      const submit = this.submitControl(observation);
      if (submit) this.markSent();
      if (submit) return turn(`Every field this form has a value for is filled: propose its own submit button "${submit.name}" (the clerk approves it).`, [{ type: 'click', ref: submit.ref }]);
      return turn('Nothing on this page matches the case file and there is no way forward.', [
        { type: 'fail', reason: `No matching fields and no continue button on "${observation.headings[0] ?? observation.title}"` },
      ]);
    }
    return turn(`Fill ${actions.length - (next ? 1 : 0)} matching control(s)${next ? ` and press "${next.name}"` : ''}.`, actions.slice(0, 12));
  }

  private fillActions(observation: Observation): Action[] {
    const actions: Action[] = [];
    const ticked = new Set<string>();
    for (const control of observation.controls) {
      if (control.disabled) continue;
      if (control.inputType === 'file') {
        const document = this.documents!.fieldFor(control.name) ?? this.documents!.fieldFor(control.group);
        if (document && !control.value) actions.push({ type: 'upload', ref: control.ref, document });
        continue;
      }
      const field = this.fieldOf(control.name, control);
      const value = this.valueOf(field);
      if (control.role === 'combobox' && control.options && !field) {
        const pick = this.lookupPick(control);
        if (pick) actions.push(pick);
        continue;
      }
      if (FILLABLE_ROLES.has(control.role) && control.inputType !== 'password') {
        const fill = this.fillFor(control, observation);
        if (fill) actions.push(fill);
      } else if (CHOICE_ROLES.has(control.role) && typeof value === 'string') {
        if (!sameText(control.selected ?? control.value, value)) actions.push({ type: 'select', ref: control.ref, field: field! });
      } else if (control.role === 'checkbox' || control.role === 'switch') {
        const choice = this.checkboxChoice(control, field, value);
        if (choice && (control.checked === true) !== choice.checked) actions.push({ type: 'check', ref: control.ref, ...choice });
      } else if (control.role === 'radio') {
        const choice = this.radioChoice(control, observation);
        if (choice && control.checked !== true && !ticked.has(choice.key)) {
          ticked.add(choice.key);
          actions.push({ type: 'check', ref: control.ref, checked: true, ...(choice.field ? { field: choice.field } : {}) });
        }
      }
    }
    return actions;
  }

  /**
   * The fill of a text box: the case field its label names (or, for one box of a date in three, the
   * date its group names), written the way the page says the box wants it (placeholder, hint, the
   * error the portal showed for it). Nothing when the box already holds that text.
   */
  private fillFor(control: Control, observation: Observation): Action | undefined {
    let field = this.fieldOf(control.name, control);
    let part = undefined as ReturnType<typeof datePart>;
    if (field === undefined) {
      part = datePart(control.name);
      field = part ? this.fieldOf(control.group, control) : undefined;
    }
    const value = this.valueOf(field);
    if (typeof value !== 'string' || field === undefined) return undefined;
    const errors = this.errorsOf(control, observation);
    let format = control.inputType === 'date' ? undefined : formatFor(value, [control.expects, control.name, control.group, ...errors], part);
    const key = `${field}|${control.name}`;
    const entry = this.typed.get(key);
    const typed = entry?.texts ?? [];
    if (entry && !entry.sent && control.value === typed[typed.length - 1]) return undefined;
    const refused = !!entry?.sent && (control.invalid || errors.length > 0 || entry.boxRefused !== undefined);
    if (refused) {
      // The portal refused what was typed: the next plausible format not yet tried (or, with none left, the clerk is asked).
      const candidates = control.inputType === 'date' ? [] : retryFormats(value, `${control.name} ${control.group ?? ''} ${field}`, format);
      const next = candidates.findIndex((f) => !typed.includes(f ? formatted(value, f) : value));
      if (next < 0) {
        // Every plausible format was refused: the last one once more (a portal may refuse what it
        // cannot check just now, "Enter it again"), and only then is the clerk asked.
        if (entry!.again) return undefined;
        const last = typed[typed.length - 1];
        const lastFormat = candidates.find((f) => (f ? formatted(value, f) : value) === last) ?? (format && formatted(value, format) === last ? format : undefined);
        this.typed.set(key, { texts: typed, sent: false, again: true });
        this.lastFills.set(control.ref, key);
        return lastFormat ? { type: 'fill', ref: control.ref, field, format: lastFormat } : { type: 'fill', ref: control.ref, field };
      }
      format = candidates[next];
    } else if (control.value !== undefined && typed.includes(control.value)) {
      return undefined;
    }
    const text = format ? formatted(value, format) : value;
    if (control.value === text && !refused) return undefined;
    this.typed.set(key, { texts: [...typed.filter((t) => t !== text), text], sent: false });
    this.lastFills.set(control.ref, key);
    return format ? { type: 'fill', ref: control.ref, field, format } : { type: 'fill', ref: control.ref, field };
  }

  /** The error messages the page ties to a control (by its name or its group's). */
  private errorsOf(control: Control, observation: Observation): string[] {
    return observation.errors.filter((e) => e.field !== undefined && (sameText(e.field, control.name) || sameText(e.field, control.group))).map((e) => e.message);
  }

  /** A box the portal refuses again after every plausible format of its case value was typed: what to ask the clerk. */
  private refusedEveryFormat(observation: Observation): { field: string; label: string; tried: string[]; message: string } | undefined {
    for (const control of observation.controls) {
      if (!FILLABLE_ROLES.has(control.role) || control.disabled) continue;
      const errors = this.errorsOf(control, observation);
      const field = this.fieldOf(control.name, control);
      const value = this.valueOf(field);
      if (field === undefined || typeof value !== 'string' || Object.hasOwn(this.clerkFields, field)) continue;
      const entry = this.typed.get(`${field}|${control.name}`);
      if (!control.invalid && errors.length === 0 && entry?.boxRefused === undefined) continue;
      if (!entry?.sent || !entry.again) continue;
      const typed = entry.texts;
      const hinted = formatFor(value, [control.expects, control.name, control.group, ...errors]);
      const left = retryFormats(value, `${control.name} ${control.group ?? ''} ${field}`, hinted).filter((f) => !typed.includes(f ? formatted(value, f) : value));
      if (left.length > 0) continue;
      const message = errors[0] ?? entry.boxRefused ?? observation.errors.find((e) => e.field === undefined)?.message ?? 'the value is not accepted';
      return { field, label: `"${control.name}"`, tried: typed, message: message.slice(0, 200) };
    }
    return undefined;
  }

  /**
   * One more person's block is needed: the case has more people in a group than the page shows
   * blocks for, and the page has an "Add another …" button.
   */
  private addAnotherControl(observation: Observation): Control | undefined {
    const groups = groupsOf(this.fieldSet());
    if (groups.size === 0) return undefined;
    const add = observation.controls.find((c) => isPressable(c) && !c.disabled && ADD_ANOTHER.test(normaliseLabel(c.name)));
    if (!add) return undefined;
    for (const [, group] of groups) {
      const shown = observation.controls.filter((c) => group.members.has(this.names!.fieldFor(c.name) ?? '') || group.members.has(this.names!.fieldFor(c.group) ?? ''));
      if (shown.length === 0) continue;
      const most = Math.max(...shown.map((c) => c.section?.ordinal ?? 1));
      if (most < group.count) return add;
    }
    return undefined;
  }

  /**
   * A look-up to press: the page has a "Find address" button, a box beside it holds (or is being
   * given) the case's value, and no list of results is shown yet.
   */
  private lookupControl(observation: Observation, actions: readonly Action[]): Control | undefined {
    const button = observation.controls.find((c) => isPressable(c) && !c.disabled && LOOKUP.test(normaliseLabel(c.name)));
    if (!button) return undefined;
    if (observation.controls.some((c) => c.role === 'combobox' && c.options && this.lookupPick(c, true))) return undefined;
    const filling = new Set(actions.filter((a) => a.type === 'fill').map((a) => (a as { ref: string }).ref));
    const typed = observation.controls.some((c) => FILLABLE_ROLES.has(c.role) && (filling.has(c.ref) || (!!c.value && this.fieldOf(c.name, c) !== undefined)));
    return typed ? button : undefined;
  }

  /**
   * In a list of look-up results (options that are lines of an address), the option whose every
   * line is one of the case's values: a select naming it (the guard checks the lines again).
   * `any` answers whether the list holds such an option at all, chosen or not.
   */
  private lookupPick(control: Control, any = false): Action | undefined {
    const fields = this.fieldSet();
    const values = [...fields].map((f) => [f, this.valueOf(f)!] as const);
    for (const option of control.options ?? []) {
      const matched = linesToFields(option, values);
      if (!matched || matched.length < 2) continue;
      if (any) return { type: 'select', ref: control.ref, field: matched[0]!, option };
      if (sameText(control.selected, option)) return undefined;
      return { type: 'select', ref: control.ref, field: matched[0]!, option };
    }
    return undefined;
  }

  /** A checkbox: a yes/no field its label names, a text field whose value its own label is, or a listed declaration. */
  private checkboxChoice(control: Control, field: string | undefined, value: string | boolean | undefined): { checked: boolean; field?: string } | undefined {
    if (typeof value === 'boolean') return { checked: value };
    if (this.isDeclaration(control)) return { checked: true };
    const byGroup = this.fieldOf(control.group, control);
    const groupValue = this.valueOf(byGroup);
    if (byGroup && typeof groupValue === 'string' && sameText(control.name, groupValue)) return { checked: true, field: byGroup };
    const owner = field ?? this.fieldWhoseValueIs(control.name);
    if (owner && typeof this.valueOf(owner) === 'string' && sameText(control.name, this.valueOf(owner) as string)) return { checked: true, field: owner };
    return undefined;
  }

  /**
   * A radio: the one whose label is the value of the field its group names; where the group has no
   * name (or names no field), the one whose own label is the value of exactly one case field.
   */
  private radioChoice(control: Control, observation: Observation): { key: string; field?: string } | undefined {
    const groupField = this.fieldOf(control.group, control);
    const groupValue = this.valueOf(groupField);
    if (groupField && typeof groupValue === 'string') return sameText(control.name, groupValue) ? { key: `group:${groupField}` } : undefined;
    const owner = this.fieldWhoseValueIs(control.name);
    if (!owner) return undefined;
    // Another radio of the page whose label is also that value (two unnamed groups offering it) makes it ambiguous.
    const twins = observation.controls.filter((c) => c.role === 'radio' && sameText(c.name, control.name) && c.frameUrl === control.frameUrl);
    return twins.length === 1 ? { key: `field:${owner}`, field: owner } : undefined;
  }

  /** The one case field (or clerk answer) whose text value is this label, or undefined when none or several are. */
  private fieldWhoseValueIs(label: string): string | undefined {
    if (!normaliseLabel(label)) return undefined;
    const fields = { ...this.caseView!.fields, ...this.clerkFields };
    const owners = Object.keys(fields).filter((f) => typeof fields[f] === 'string' && sameText(fields[f] as string, label));
    return owners.length === 1 ? owners[0] : undefined;
  }

  /** A required, empty text box or choice whose label names no case field: the clerk is asked before a one-page form is sent. */
  private requiredUnfilled(observation: Observation): { label: string; field: string } | undefined {
    for (const control of observation.controls) {
      if (!control.required || control.disabled || control.inputType === 'password' || control.inputType === 'file') continue;
      if (!FILLABLE_ROLES.has(control.role) && !CHOICE_ROLES.has(control.role)) continue;
      const empty = CHOICE_ROLES.has(control.role) ? !control.selected || /^(select|choose|--)/i.test(control.selected.trim()) : !control.value;
      if (!empty) continue;
      const label = control.name || control.group;
      if (!label || this.names!.fieldFor(label) !== undefined) continue;
      if (datePart(control.name) && this.names!.fieldFor(control.group) !== undefined) continue;
      return { label, field: fieldNameFor(label) };
    }
    return undefined;
  }

  /** The form's own submit button: one named Submit (or Send, Apply, File, Register) that is not a reset or cancel. */
  private submitControl(observation: Observation): Control | undefined {
    const buttons = observation.controls.filter((c) => c.role === 'button' && !c.disabled && !NEVER_PRESS.test(normaliseLabel(c.name)));
    return buttons.find((c) => SUBMIT.test(normaliseLabel(c.name))) ?? buttons.find((c) => SEND_WORDS.test(normaliseLabel(c.name)));
  }

  /**
   * A required control the page marks invalid (a validation error blocks the way on) whose label
   * matches no case field: its value is missing from the case. The field name comes from the label.
   */
  private missingValue(observation: Observation): { label: string; field: string } | undefined {
    const names = this.names!;
    for (const control of observation.controls) {
      if (!control.invalid || control.disabled) continue;
      const choice = control.role === 'radio';
      if (!choice && !FILLABLE_ROLES.has(control.role) && !CHOICE_ROLES.has(control.role)) continue;
      const label = choice ? control.group : control.name;
      if (!label || control.inputType === 'password' || names.fieldFor(label) !== undefined) continue;
      if (!choice && datePart(control.name) && names.fieldFor(control.group) !== undefined) continue;
      if (choice && this.fieldWhoseValueIs(control.name) !== undefined) continue;
      const tied = observation.errors.some((e) => e.field !== undefined && sameText(e.field, label));
      if (!control.required && !tied) continue;
      return { label, field: fieldNameFor(label) };
    }
    return undefined;
  }

  private isDeclaration(control: Control): boolean {
    const label = normaliseLabel(control.name);
    return this.caseView!.declarations.some((d) => label.includes(normaliseLabel(d)));
  }

  private continueControl(observation: Observation): Control | undefined {
    const candidates = observation.controls.filter((c) => isPressable(c) && !c.disabled && !NEVER_PRESS.test(normaliseLabel(c.name)));
    for (const pattern of CONTINUE_WORDS) {
      const hit = candidates.find((c) => pattern.test(normaliseLabel(c.name)));
      if (hit) return hit;
    }
    return undefined;
  }

  private countVisit(observation: Observation): number {
    // A format tried anew is progress, not the same visit: the count of texts typed so far is part of the key.
    const tries = [...this.typed.values()].reduce((n, e) => n + e.texts.length, 0);
    const key = [observation.url, observation.headings.join('|'), observation.errors.map((e) => e.message).join('|'), tries].join('\n');
    const visits = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, visits);
    return visits;
  }
}

/** A case-field name for a label: "Declarant capacity" → `declarant_capacity`. */
export function fieldNameFor(label: string): string {
  const name = normaliseLabel(label)
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 80);
  return /^[a-z]/.test(name) ? name : `field_${name}`.slice(0, 80);
}

function formatted(value: string, format: ValueFormat): string {
  const result = formatValue(value, format);
  return result.ok ? result.text : value;
}

function isPressable(control: Control): boolean {
  return control.role === 'button' || control.role === 'link';
}

function turn(reasoning: string, actions: Action[]): Turn {
  return { reasoning, actions };
}
