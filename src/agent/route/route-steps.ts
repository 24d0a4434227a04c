import type { Action } from '../../shared/action';
import type { Control, Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import type { ControlIdentity, RouteAction, RouteStep } from '../../shared/route';
import type { CaseFile } from '../../shared/case-file';
import { listedDeclaration } from '../guard/rules/declarations';
import { findApplicationNumber } from '../portal/page-kind';
import { normaliseLabel, type FieldNames } from '../decide/rules/field-names';
import { identify, resolveIdentity } from './control-identity';
import { pageSignature, type Scrubber } from './page-signature';
import { MAX_ACTIONS_PER_TURN } from '../../shared/action';

/** The case as a route sees it at run time: field values (the case file's and the clerk's answers). */
export type CaseValues = Readonly<Record<string, string | boolean>>;

const FILLABLE = new Set(['textbox', 'searchbox', 'spinbutton']);
const CHOICE = new Set(['combobox', 'listbox']);
const BOXES = new Set(['checkbox', 'switch']);
/** Keys a planner's action may carry that a route keeps (anything else, e.g. a typing format, makes the turn not learnable). */
const KEPT_KEYS: Record<string, readonly string[]> = {
  fill: ['type', 'ref', 'field'],
  select: ['type', 'ref', 'field'],
  check: ['type', 'ref', 'checked', 'field'],
  click: ['type', 'ref'],
  press: ['type', 'key'],
  done: ['type', 'proof'],
};

/** The radio of a group whose label is the value (the guard's reading: the label is the value, or starts with it). */
function labelSays(control: Control, value: string): boolean {
  const label = normaliseLabel(control.name);
  const v = normaliseLabel(value);
  return v !== '' && (label === v || label.startsWith(`${v} `));
}

function stringValue(values: CaseValues, field: string | undefined): string | undefined {
  if (field === undefined || !Object.hasOwn(values, field)) return undefined;
  const v = values[field];
  return typeof v === 'string' ? v : undefined;
}

function boolValue(values: CaseValues, field: string | undefined): boolean | undefined {
  if (field === undefined || !Object.hasOwn(values, field)) return undefined;
  const v = values[field];
  return typeof v === 'boolean' ? v : undefined;
}

/** What of the case says which boxes may be ticked: its fields, their aliases and the declarations it lists. */
type CaseCover = Pick<CaseFile, 'declarations' | 'fields' | 'aliases'>;

/**
 * Why a route may not set `control` to `checked` by itself (a `check` naming no case field), or
 * undefined when it may: only to tick a declaration this case covers. A box a case field answers
 * is set by that field, never by route data (a route edited, or learned from a turn that set it
 * against the case, would answer the field for this client); any other tick or untick is a choice
 * made once on another client's run, the planner's to make again on this one.
 */
function unbackedTick(control: Control, checked: boolean, values: CaseValues, names: FieldNames, cover: CaseCover): string | undefined {
  const field = names.fieldFor(control.role === 'radio' ? control.group : control.name);
  if (field !== undefined && Object.hasOwn(values, field)) return `the route sets ${control.label} by itself, and case field "${field}" answers it`;
  if (checked && listedDeclaration(control, cover)) return undefined;
  return `the route ${checked ? 'ticks' : 'unticks'} ${control.label}, which no declaration or field of this case covers`;
}

/**
 * Why a route may not put case field `field` in `control`, or undefined when it may: the box's
 * label (a radio's group) names another field of this case. A route never answers one field with
 * another's value, whatever its data says.
 */
function otherField(control: Control, field: string, names: FieldNames): string | undefined {
  const named = names.fieldFor(control.role === 'radio' ? control.group : control.name);
  return named !== undefined && named !== field ? `the route puts case field "${field}" in ${control.label}, which case field "${named}" answers` : undefined;
}

/**
 * Why a route may not click `control`, or undefined when it may: a click on a checkbox, switch or
 * radio sets it as surely as `check` does, but names no field and meets neither the guard's
 * declaration rule nor {@link unbackedTick}; a route sets a box only with check or choose.
 */
function boxClick(control: Control): string | undefined {
  const box = BOXES.has(control.role) || control.role === 'radio' || ['checkbox', 'radio'].includes(control.inputType?.toLowerCase() ?? '');
  return box ? `the route clicks ${control.label}, a box: a route sets a box only by ticking it for this case` : undefined;
}

interface LearnInput {
  observation: Observation;
  /** The planner's actions for this read, schema-valid. */
  actions: readonly Action[];
  values: CaseValues;
  /** The case's field names and aliases: which control answers which field. */
  names: FieldNames;
  scrub: Scrubber;
  cover: CaseCover;
}

/**
 * A planner's turn on one page, in route terms: each action by its control's identity and case
 * field, plus every control of the page the case answers that the planner left alone (a box this
 * client leaves unticked may need a tick for the next one), placed before the turn's first click.
 * Not learnable: a page showing errors, a turn with a `goto`, `ask` or `fail`, a tick a route may
 * not set by itself ({@link unbackedTick}), or an action whose identity does not name the very
 * control the planner chose on this live read.
 */
export function learnStep(input: LearnInput): { step: RouteStep } | { unlearnable: string } {
  const { observation, values, names, scrub } = input;
  if (observation.errors.length > 0) return { unlearnable: 'the page shows errors' };
  const byRef = new Map(observation.controls.map((c) => [c.ref, c]));
  const touched = new Set<string>();
  const touchedGroups = new Set<string>();
  const translated: RouteAction[] = [];
  for (const action of input.actions) {
    const extra = Object.keys(action).filter((k) => !(KEPT_KEYS[action.type] ?? []).includes(k));
    if (!KEPT_KEYS[action.type]) return { unlearnable: `a ${action.type} action is never part of a route` };
    if (extra.length) return { unlearnable: `a ${action.type} carrying ${extra.join(', ')}` };
    if (action.type === 'press') {
      translated.push({ type: 'press', key: action.key });
      continue;
    }
    if (action.type === 'done') {
      translated.push({ type: 'done' });
      continue;
    }
    if (!('ref' in action)) return { unlearnable: `a ${action.type} action without a control` };
    const control = byRef.get(action.ref);
    if (!control) return { unlearnable: `ref ${action.ref} is not a control of this read` };
    const identity = identify(control, observation, scrub);
    touched.add(control.ref);
    switch (action.type) {
      case 'fill':
      case 'select':
        translated.push({ type: action.type, control: identity, field: action.field });
        break;
      case 'click': {
        const refused = boxClick(control);
        if (refused) return { unlearnable: refused };
        translated.push({ type: 'click', control: identity });
        break;
      }
      case 'check': {
        const bound = checkBinding(control, identity, action.checked, action.field, values, names, scrub);
        const unbacked = bound ? undefined : unbackedTick(control, action.checked, values, names, input.cover);
        if (unbacked) return { unlearnable: unbacked };
        if (bound?.type === 'choose') touchedGroups.add(bound.group);
        translated.push(bound ?? { type: 'check', control: identity, checked: action.checked });
        break;
      }
    }
  }
  const extras: RouteAction[] = [];
  for (const control of observation.controls) {
    if (touched.has(control.ref) || control.disabled) continue;
    const bound = fieldBinding(control, observation, values, names, scrub) ?? tickedDeclaration(control, observation, values, names, input.cover, scrub);
    if (!bound) continue;
    if (bound.type === 'choose') {
      if (touchedGroups.has(bound.group)) continue;
      touchedGroups.add(bound.group);
    }
    extras.push(bound);
  }
  const firstMove = translated.findIndex((a) => a.type === 'click' || a.type === 'press' || a.type === 'done');
  const at = firstMove === -1 ? translated.length : firstMove;
  const actions = [...translated.slice(0, at), ...extras, ...translated.slice(at)];
  if (actions.length === 0) return { unlearnable: 'the turn did nothing on the page' };
  const step: RouteStep = { signature: pageSignature(observation, scrub), actions };
  // Verified on the live read: each identity names exactly the control the planner chose.
  for (const [i, action] of input.actions.entries()) {
    if (!('ref' in action)) continue;
    const learned = translated[i];
    if (!learned || !('control' in learned)) continue;
    const found = resolveIdentity(learned.control, observation, scrub);
    if (!('control' in found) || found.control.ref !== action.ref) {
      return { unlearnable: `the identity of ${byRef.get(action.ref)?.label ?? action.ref} does not name it alone on this page` };
    }
  }
  return { step };
}

/**
 * A declaration box this read shows ticked that the case lists, as a tick for the route: a turn
 * that ticked it before this page's read (one the route could not learn, as a click on a radio
 * beside it) left it ticked, and the next client's page needs the tick too. The follow run ticks it
 * only if that client's case lists the declaration as well ({@link unbackedTick}).
 */
function tickedDeclaration(control: Control, observation: Observation, values: CaseValues, names: FieldNames, cover: CaseCover, scrub: Scrubber): RouteAction | undefined {
  if (!BOXES.has(control.role) || control.checked !== true) return undefined;
  if (unbackedTick(control, true, values, names, cover) !== undefined) return undefined;
  return { type: 'check', control: identify(control, observation, scrub), checked: true };
}

/** A tick or radio choice that answers a case field (the planner named it, or the label names it). */
function checkBinding(control: Control, identity: ControlIdentity, checked: boolean, named: string | undefined, values: CaseValues, names: FieldNames, scrub: Scrubber): RouteAction | undefined {
  if (control.role === 'radio') {
    const field = named ?? names.fieldFor(control.group);
    const value = stringValue(values, field);
    const group = scrub.optional(control.group);
    if (checked && field && group && value !== undefined && labelSays(control, value)) return { type: 'choose', role: 'radio', group, field };
    return undefined;
  }
  const field = named ?? names.fieldFor(control.name);
  const value = boolValue(values, field);
  if (field && value !== undefined && value === checked) return { type: 'check', control: identity, field };
  return undefined;
}

/** A control of the page the case answers, in route terms (for controls the planner left as they were). */
function fieldBinding(control: Control, observation: Observation, values: CaseValues, names: FieldNames, scrub: Scrubber): RouteAction | undefined {
  if (control.inputType === 'password' || control.inputType === 'file') return undefined;
  if (control.role === 'radio') {
    const field = names.fieldFor(control.group);
    const group = scrub.optional(control.group);
    if (field && group && stringValue(values, field) !== undefined) return { type: 'choose', role: 'radio', group, field };
    return undefined;
  }
  const field = names.fieldFor(control.name);
  if (!field) return undefined;
  const identity = identify(control, observation, scrub);
  if (FILLABLE.has(control.role) && stringValue(values, field) !== undefined) return { type: 'fill', control: identity, field };
  if (CHOICE.has(control.role) && stringValue(values, field) !== undefined) return { type: 'select', control: identity, field };
  if (BOXES.has(control.role) && boolValue(values, field) !== undefined) return { type: 'check', control: identity, field };
  return undefined;
}

interface ResolveInput {
  step: RouteStep;
  observation: Observation;
  values: CaseValues;
  names: FieldNames;
  cover: CaseCover;
  scrub: Scrubber;
  profile: PortalProfile;
}

/**
 * A route step as a turn on this read: each action's control found by its identity, values
 * named by case field (this client's), and what is already so on the page left out (a box
 * already ticked, a value already typed). A control the read does not have, or a radio group
 * without the option this client's value names, is a mismatch: the step goes to the planner.
 */
export function resolveStep(input: ResolveInput): { actions: Action[]; partial: boolean } | { mismatch: string } {
  const { observation, values, scrub } = input;
  const actions: Action[] = [];
  for (const ra of input.step.actions) {
    switch (ra.type) {
      case 'press':
        actions.push({ type: 'press', key: ra.key });
        continue;
      case 'done': {
        const number = findApplicationNumber(observation, input.profile);
        if (!number) return { mismatch: 'the route expects the confirmation page, and this page shows no application number' };
        actions.push({ type: 'done', proof: `Application number ${number} on the confirmation page` });
        continue;
      }
      case 'choose': {
        const value = stringValue(values, ra.field);
        if (value === undefined) continue;
        const radios = observation.controls.filter((c) => c.role === 'radio' && scrub.matches(ra.group, c.group));
        const picked = radios.filter((c) => labelSays(c, value));
        if (picked.length !== 1 || !picked[0]) return { mismatch: `group "${ra.group}" has ${picked.length === 0 ? 'no option' : 'more than one option'} for case field "${ra.field}"` };
        const swapped = otherField(picked[0], ra.field, input.names);
        if (swapped) return { mismatch: swapped };
        if (picked[0].checked === true) continue;
        actions.push({ type: 'check', ref: picked[0].ref, checked: true, field: ra.field });
        continue;
      }
      default:
        break;
    }
    const found = resolveIdentity(ra.control, observation, scrub);
    if (!('control' in found)) return { mismatch: found.missing };
    const control = found.control;
    const swapped = 'field' in ra && ra.field !== undefined ? otherField(control, ra.field, input.names) : undefined;
    if (swapped) return { mismatch: swapped };
    switch (ra.type) {
      case 'click': {
        const refused = boxClick(control);
        if (refused) return { mismatch: refused };
        actions.push({ type: 'click', ref: control.ref });
        break;
      }
      case 'fill': {
        const value = stringValue(values, ra.field);
        if (value !== undefined && control.value !== value) actions.push({ type: 'fill', ref: control.ref, field: ra.field });
        break;
      }
      case 'select': {
        const value = stringValue(values, ra.field);
        if (value !== undefined && normaliseLabel(control.selected ?? '') !== normaliseLabel(value)) actions.push({ type: 'select', ref: control.ref, field: ra.field });
        break;
      }
      case 'check': {
        const unbacked = ra.field === undefined && ra.checked !== undefined ? unbackedTick(control, ra.checked, values, input.names, input.cover) : undefined;
        if (unbacked) return { mismatch: unbacked };
        const wanted = ra.field !== undefined ? boolValue(values, ra.field) : ra.checked;
        if (wanted === undefined || (control.checked === true) === wanted) break;
        actions.push({ type: 'check', ref: control.ref, checked: wanted, ...(ra.field !== undefined ? { field: ra.field } : {}) });
        break;
      }
    }
  }
  if (actions.length === 0) return { mismatch: 'the route has nothing left to do on this page' };
  return { actions: actions.slice(0, MAX_ACTIONS_PER_TURN), partial: actions.length > MAX_ACTIONS_PER_TURN };
}
