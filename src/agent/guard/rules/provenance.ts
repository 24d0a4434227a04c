import type { Action } from '../../../shared/action';
import type { FieldValue } from '../../../shared/case-file';
import type { Provenance } from '../../../shared/verdict';
import { shorten } from '../../../shared/allowed-hosts';
import { parseGroupPath } from '../../../shared/case-groups';
import { lookupLines, sameLine } from '../../../shared/lookup-option';
import { formatValue, formatWords } from '../../../shared/value-format';
import type { GuardContext } from '../guard-context';
import { allow, block, type GuardRule } from './rule';

/** The actions that put a value into the page. The model names a field; code supplies the value. */
type ValueAction = Extract<Action, { type: 'fill' | 'select' }>;

interface FoundValue {
  provenance: Provenance & { source: 'case' | 'clerk' };
  value: FieldValue;
}

/** Input types nothing may be typed into by the agent, and why. */
const NOT_TYPED: Readonly<Record<string, string>> = {
  password: 'it is a password box: signing in is done by code from the vault, never by the agent',
  file: 'it is a file upload: attach one of the case documents with upload (naming the document)',
  checkbox: 'it is a checkbox: tick or untick it with check (naming the case field in field)',
  radio: 'it is a radio button: choose the option whose label is the case value with check, naming the case field in field',
};

/**
 * Where a field's value comes from. An answer the clerk typed during this run wins over the case
 * file (it is the newer word of a person who saw the page and the question); otherwise the case
 * file. Only own keys count: a field called "constructor" or "__proto__" is not a field.
 */
function findValue(field: string, ctx: Pick<GuardContext, 'caseFile' | 'clerkValues'>): FoundValue | undefined {
  if (Object.hasOwn(ctx.clerkValues, field)) return { provenance: { source: 'clerk', field }, value: ctx.clerkValues[field]! };
  if (Object.hasOwn(ctx.caseFile.fields, field)) return { provenance: { source: 'case', field }, value: ctx.caseFile.fields[field]! };
  return undefined;
}

function knownFields(ctx: GuardContext): string {
  const names = [...new Set([...Object.keys(ctx.caseFile.fields), ...Object.keys(ctx.clerkValues)])];
  const shown = names.slice(0, 25).join(', ');
  return names.length > 25 ? `${shown}, …` : shown;
}

/**
 * `fill` and `select` must name a field of the case file (or one the clerk answered); the verdict
 * carries where the value comes from. Unknown fields, yes/no fields, password boxes, file uploads
 * and checkboxes are refused. A `check` that names a field is held to it ({@link checkChoice}).
 */
export const provenanceRule: GuardRule = {
  id: 'provenance',
  check(action, ctx) {
    if (action.type === 'check') return checkChoice(action, ctx);
    if (action.type !== 'fill' && action.type !== 'select') return undefined;
    const found = findValue(action.field, ctx);
    if (!found) {
      return block('provenance', `There is no case field named "${shorten(action.field, 80)}", so there is nothing to type. Case fields: ${knownFields(ctx)}.`);
    }
    if (typeof found.value === 'boolean') {
      return block('provenance', `Case field "${action.field}" is a yes/no answer, not text; tick or untick its checkbox with check instead.`);
    }
    const control = ctx.control(action.ref);
    const refusal = control?.inputType ? NOT_TYPED[control.inputType.toLowerCase()] : undefined;
    if (control && refusal) return block('provenance', `Nothing is typed into ${control.label}: ${refusal}.`);
    const provenance = control?.section ? { ...found.provenance, section: control.section } : found.provenance;
    const from = found.provenance.source === 'clerk' ? 'the clerk’s answer for' : 'case field';
    const verb = action.type === 'fill' ? 'Types' : 'Selects';
    if (action.type === 'select' && action.option !== undefined) return lookupChoice(action, found.value, ctx, provenance);
    if (action.type === 'fill' && action.format) {
      const formatted = formatValue(found.value, action.format);
      if (!formatted.ok) return block('provenance', `Case field "${action.field}" cannot be typed ${formatWords(action.format)}: ${formatted.reason}.`);
      return allow('provenance', `${verb} ${from} "${action.field}" ${formatWords(action.format)}${control ? ` into ${control.label}` : ''}.`, { ...provenance, format: action.format });
    }
    return allow('provenance', `${verb} ${from} "${action.field}"${control ? ` into ${control.label}` : ''}.`, provenance);
  },
};

/**
 * A look-up's result chosen with `select … option` (an address the portal listed for a postcode):
 * the option must be one the control lists, every line of it must be a value of the case (of the
 * same person, for a group's field; a postcode matches with or without its space), and the named
 * field's value must be one of those lines. The verdict names the option, so any card shows what
 * is picked.
 */
function lookupChoice(action: Extract<Action, { type: 'select' }>, value: string, ctx: GuardContext, provenance: Provenance): ReturnType<GuardRule['check']> {
  const option = action.option!;
  const control = ctx.control(action.ref);
  const shown = `“${shorten(option, 120)}”`;
  if (!control?.options?.some((o) => normalised(o) === normalised(option))) {
    return block('provenance', `${control?.label ?? 'The control'} lists no option ${shown}; choose one of the options it lists.`);
  }
  const lines = lookupLines(option);
  const values = sameSourceValues(action.field, ctx);
  const unmatched = lines.filter((line) => !values.some(([, v]) => sameLine(v, line)));
  if (unmatched.length) {
    return block('provenance', `The look-up result ${shown} is not the case's: ${unmatched.map((l) => `“${shorten(l, 60)}”`).join(', ')} ${unmatched.length === 1 ? 'is' : 'are'} in no case field. Ask the clerk, or enter the address by hand from the case.`);
  }
  if (!lines.some((line) => sameLine(value, line))) {
    return block('provenance', `The look-up result ${shown} does not hold case field "${action.field}" (“${shorten(value, 60)}”); choose the result that does.`);
  }
  const matched = [...new Set(lines.map((line) => values.find(([, v]) => sameLine(v, line))![0]))];
  return allow('provenance', `Selects the look-up result ${shown} in ${control.label}: its lines are case fields ${matched.join(', ')}.`, { ...provenance, option });
}

/** The text values a look-up's lines may come from: the same person's fields (for a group's field), else the plain fields; the clerk's answers too. */
function sameSourceValues(field: string, ctx: Pick<GuardContext, 'caseFile' | 'clerkValues'>): [string, string][] {
  const path = parseGroupPath(field);
  const all: [string, string | boolean][] = [...Object.entries(ctx.caseFile.fields), ...Object.entries(ctx.clerkValues)];
  return all
    .filter(([name]) => {
      const p = parseGroupPath(name);
      return path ? p !== null && p.group === path.group && p.index === path.index : p === null;
    })
    .filter((e): e is [string, string] => typeof e[1] === 'string');
}

const normalised = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const YES = /^(yes|true|y)\b/;
const NO = /^(no|false|n)\b/;

/**
 * `check` that names a case field (`field`): the tick or radio choice must say what the field
 * says, and the verdict carries where it comes from. A yes/no field: a checkbox is ticked when
 * the field is yes and unticked when no; a radio labelled Yes / No is chosen when it matches. A
 * text field: the radio (or box) chosen is the one whose label is the field's value. A `check`
 * without `field` is the declaration rule's business.
 */
function checkChoice(action: Extract<Action, { type: 'check' }>, ctx: GuardContext): ReturnType<GuardRule['check']> {
  if (action.field === undefined) return undefined;
  const found = findValue(action.field, ctx);
  if (!found) {
    return block('provenance', `There is no case field named "${shorten(action.field, 80)}", so the choice has nothing to answer. Case fields: ${knownFields(ctx)}.`);
  }
  const control = ctx.control(action.ref);
  if (!control) return undefined;
  const label = normalised(control.name);
  const isRadio = control.role === 'radio' || control.inputType?.toLowerCase() === 'radio';
  const says = (fits: boolean, what: string) =>
    fits
      ? allow('provenance', `${action.checked ? 'Chooses' : 'Clears'} ${control.label}: case field "${action.field}" is ${what}.`, found.provenance)
      : block('provenance', `${control.label} ${action.checked ? 'chosen' : 'cleared'} does not say what case field "${action.field}" says (${what}); choose the option that does.`);
  if (typeof found.value === 'boolean') {
    const what = found.value ? 'yes' : 'no';
    if (isRadio && (YES.test(label) || NO.test(label))) return says(action.checked && (found.value ? YES : NO).test(label), what);
    return says(action.checked === found.value, what);
  }
  const value = normalised(found.value);
  return says(action.checked && value !== '' && (label === value || label.startsWith(`${value} `)), `“${shorten(found.value, 60)}”`);
}

/**
 * The text the executor types or selects for a `fill`/`select`: always from the case file or the
 * clerk, never from the model; a `fill` that names a format gets the value written that way by code. Throws when there is no such text (the guard blocks those actions,
 * so a throw here means a caller skipped the guard; failing the run is the safe answer).
 */
export function resolveValue(action: ValueAction, ctx: Pick<GuardContext, 'caseFile' | 'clerkValues'>): string {
  const found = findValue(action.field, ctx);
  if (!found) throw new Error(`No case field named "${shorten(action.field, 80)}"; nothing was typed`);
  if (typeof found.value !== 'string') throw new Error(`Case field "${action.field}" is a yes/no answer, not text; nothing was typed`);
  // A look-up's result: the option the guard matched line by line to the case (it blocks any other).
  if (action.type === 'select' && action.option !== undefined) {
    const values = sameSourceValues(action.field, ctx);
    const lines = lookupLines(action.option);
    if (!lines.every((line) => values.some(([, v]) => sameLine(v, line))) || !lines.some((line) => sameLine(found.value, line))) {
      throw new Error(`The look-up result "${shorten(action.option, 80)}" is not the case's; nothing was selected`);
    }
    return action.option;
  }
  if (action.type === 'fill' && action.format) {
    const formatted = formatValue(found.value, action.format);
    if (!formatted.ok) throw new Error(`Case field "${action.field}" cannot be typed ${formatWords(action.format)} (${formatted.reason}); nothing was typed`);
    return formatted.text;
  }
  return found.value;
}
