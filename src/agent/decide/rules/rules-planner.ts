import type { Action, Turn } from '../../../shared/action';
import type { Control, Observation } from '../../../shared/observation';
import type { PortalProfile } from '../../../shared/portal-profile';
import { findApplicationNumber, isConfirmationPage, isFinalReviewPage } from '../../portal/page-kind';
import type { CaseView, PlanInput, PlanResult, Planner } from '../planner';
import { FieldNames, normaliseLabel, sameText } from './field-names';

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
  /** Fields the clerk supplied during the run: they fill like case fields. */
  private clerkFields: Record<string, string> = {};
  private readonly seen = new Map<string, number>();

  constructor(private readonly profile: PortalProfile) {}

  start(caseView: CaseView): void {
    this.caseView = caseView;
    this.names = new FieldNames(Object.keys(caseView.fields), caseView.aliases);
  }

  async decide(input: PlanInput): Promise<PlanResult> {
    this.learn(input.clerkFields ?? {});
    return { turn: this.plan(input.observation), call: null };
  }

  private learn(clerkFields: Record<string, string>): void {
    const known = Object.keys(this.clerkFields);
    if (Object.keys(clerkFields).every((f) => known.includes(f) && this.clerkFields[f] === clerkFields[f])) return;
    this.clerkFields = { ...clerkFields };
    const caseView = this.caseView!;
    this.names = new FieldNames([...Object.keys(caseView.fields), ...Object.keys(clerkFields)], caseView.aliases);
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
      const submit = observation.controls.find((c) => isPressable(c) && SUBMIT.test(normaliseLabel(c.name)));
      if (submit) return turn('Review page: propose the final submit (the clerk approves it).', [{ type: 'click', ref: submit.ref }]);
    }

    const missing = this.missingValue(observation);
    if (missing) {
      return turn(`The form requires "${missing.label}" and the case file has no such field: ask the clerk.`, [
        { type: 'ask', kind: 'missing_value', question: `The portal requires "${missing.label}", which the case file does not have. What should be entered?`, field: missing.field },
      ]);
    }

    const actions: Action[] = [...this.fillActions(observation)];
    const next = this.continueControl(observation);
    if (next) actions.push({ type: 'click', ref: next.ref });
    if (actions.length === 0) {
      return turn('Nothing on this page matches the case file and there is no way forward.', [
        { type: 'fail', reason: `No matching fields and no continue button on "${observation.headings[0] ?? observation.title}"` },
      ]);
    }
    return turn(`Fill ${actions.length - (next ? 1 : 0)} matching control(s)${next ? ` and press "${next.name}"` : ''}.`, actions.slice(0, 12));
  }

  private fillActions(observation: Observation): Action[] {
    const names = this.names!;
    const actions: Action[] = [];
    for (const control of observation.controls) {
      if (control.disabled) continue;
      const field = names.fieldFor(control.name);
      const value = this.valueOf(field);
      if (FILLABLE_ROLES.has(control.role) && typeof value === 'string' && control.inputType !== 'password') {
        if (control.value !== value) actions.push({ type: 'fill', ref: control.ref, field: field! });
      } else if (CHOICE_ROLES.has(control.role) && typeof value === 'string') {
        if (!sameText(control.selected, value)) actions.push({ type: 'select', ref: control.ref, field: field! });
      } else if (control.role === 'checkbox' || control.role === 'switch') {
        const wanted = typeof value === 'boolean' ? value : this.isDeclaration(control) ? true : undefined;
        if (wanted !== undefined && (control.checked === true) !== wanted) actions.push({ type: 'check', ref: control.ref, checked: wanted });
      } else if (control.role === 'radio') {
        const groupField = names.fieldFor(control.group);
        const groupValue = this.valueOf(groupField);
        if (typeof groupValue === 'string' && sameText(control.name, groupValue) && control.checked !== true) {
          actions.push({ type: 'check', ref: control.ref, checked: true });
        }
      }
    }
    return actions;
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
    const key = [observation.url, observation.headings.join('|'), observation.errors.map((e) => e.message).join('|')].join('\n');
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

function isPressable(control: Control): boolean {
  return control.role === 'button' || control.role === 'link';
}

function turn(reasoning: string, actions: Action[]): Turn {
  return { reasoning, actions };
}
