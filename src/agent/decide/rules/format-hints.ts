import { caseDate, formatValue, type ValueFormat } from '../../../shared/value-format';
import { normaliseLabel } from './field-names';

/**
 * Reading what a box wants from what the page says about it (its placeholder, pattern, hint, the
 * error the portal showed, the Day/Month/Year label of one box of three), as one of the closed list
 * of formats. Only page words choose the format; the text typed is still derived from the case
 * value by code.
 */

/** The part of a date a box of three asks for, from its own label. */
export function datePart(label: string | undefined): ValueFormat | undefined {
  const words = normaliseLabel(label ?? '');
  if (/^(day|dd|d)$/.test(words)) return 'date:day';
  if (/^(month|mm|m)$/.test(words)) return 'date:month';
  if (/^(year|yyyy|yy|y)$/.test(words)) return 'date:year';
  return undefined;
}

/** A format a page text names (`DD/MM/YYYY`, `for example 27 March 2007`, `without country code`), if any. */
function formatNamedIn(text: string | undefined, value: string): ValueFormat | undefined {
  if (!text) return undefined;
  const t = text.toLowerCase();
  if (/\bdd\s*\/\s*mm\s*\/\s*yyyy\b/.test(t) || /\bday\s*\/\s*month\s*\/\s*year\b/.test(t)) return 'date:DD/MM/YYYY';
  if (/\bmm\s*\/\s*dd\s*\/\s*yyyy\b/.test(t)) return 'date:MM/DD/YYYY';
  if (/\byyyy\s*-\s*mm\s*-\s*dd\b/.test(t)) return 'date:YYYY-MM-DD';
  if (/\bd{1,2}\s+m{3,4}\s+y{4}\b/.test(t) || /\b\d{1,2} (january|february|march|april|may|june|july|august|september|october|november|december) \d{4}\b/.test(t)) return 'date:D MMMM YYYY';
  // An example date ("for example, 17/5/2024"): day first unless only its second number can be a day.
  const example = /\b(\d{1,2})\/(\d{1,2})\/\d{4}\b/.exec(t);
  if (example && !('problem' in caseDate(value))) return Number(example[2]) > 12 && Number(example[1]) <= 12 ? 'date:MM/DD/YYYY' : 'date:DD/MM/YYYY';
  if (/(start|begin)s? with (a )?0\b|(include|with) (the |a )?leading (0|zero)|\b0\d{9,10}\b/.test(t) && /\d{6}/.test(value.replace(/\D/g, ''))) return 'phone:trunk';
  if (/(include|with) (the )?(country|international) (code|prefix)|\+\d{1,3}\s*x{6,}/.test(t) && /^\s*(\+|00)/.test(value)) return 'phone:international';
  if (/\b(post ?code|pin ?code)\b.*\b(no|without) spaces?\b|\b(no|without) spaces?\b.*\b(post ?code|pin ?code)\b/.test(t)) return 'postcode:compact';
  if (/without (the )?(country|international) (code|prefix)|\b10[- ]digit (mobile|phone)|do not (include|enter) (the )?\+?\d*\s*(country code)?/.test(t) && /^\s*(\+|00)/.test(value)) return 'phone:national';
  if (/\b(digits|numbers) only\b|only (digits|numbers)\b|without (spaces|dashes|hyphens)/.test(t) && /\D/.test(value)) return 'digits';
  if (/without (commas|separators|grouping)|no commas/.test(t)) return 'amount:plain';
  return undefined;
}

/**
 * An input mask's placeholder (`placeholder "___-___-____"`, `(###) ###-####`): slots and the
 * separators the mask writes itself. Such a box is typed its digits, and fills in the rest: a
 * value typed with its own separators is cut short when the mask adds them again. The digits must
 * fill the slots exactly (the number with or without its country code or trunk 0); a date never
 * goes this way, as the mask cannot tell its order.
 */
function maskedDigits(text: string | undefined, value: string): ValueFormat | undefined {
  const mask = /\bplaceholder "([-\s()./]*[_#9X]+(?:[-\s()./]+[_#9X]+)+[-\s()./]*)"/i.exec(text ?? '')?.[1];
  // Only a value of digits and separators: `digits` drops letters, and a letter is part of the value.
  if (!mask || !('problem' in caseDate(value)) || !/^[\d\s()+./-]+$/.test(value)) return undefined;
  const slots = mask.replace(/[^_#9X]/gi, '').length;
  for (const format of ['digits', 'phone:national', 'phone:trunk'] as const) {
    const typed = formatValue(value, format);
    if (typed.ok && /^\d+$/.test(typed.text) && typed.text.length === slots) return format;
  }
  return undefined;
}

/**
 * The format to fill a case value with, from what the page says about the box, or undefined for
 * the value as it is. A format whose text cannot be derived from the value is never chosen.
 */
export function formatFor(value: string, hints: readonly (string | undefined)[], part?: ValueFormat): ValueFormat | undefined {
  const candidates = [part, ...hints.map((h) => maskedDigits(h, value) ?? formatNamedIn(h, value))];
  for (const format of candidates) {
    if (!format) continue;
    const formatted = formatValue(value, format);
    if (formatted.ok) return formatted.text === value && !part ? undefined : format;
  }
  return undefined;
}

const PHONE_WORDS = /\b(phone|mobile|telephone|tel|contact number|whatsapp|landline)\b/;
const POSTCODE_WORDS = /\b(post ?code|pin ?code|pin|zip( ?code)?|postal code)\b/;
const PHONE_FORMATS: readonly ValueFormat[] = ['phone:national', 'phone:trunk', 'phone:international', 'phone:spaced'];
const POSTCODE_FORMATS: readonly ValueFormat[] = ['postcode:spaced', 'postcode:compact'];

/**
 * The plausible ways of writing a value for a box, best first, when the portal refused one: the
 * format the page's words name (if any), the value as it is, then the other national ways of
 * writing a phone number or a postcode (by the box's words or the field's name). Formats whose text
 * cannot be derived, or repeat an earlier candidate's text, are left out. `undefined` is the value
 * as it is.
 */
export function retryFormats(value: string, words: string, hinted: ValueFormat | undefined): (ValueFormat | undefined)[] {
  const t = normaliseLabel(words.replace(/_/g, ' '));
  const kind = PHONE_WORDS.test(t) ? PHONE_FORMATS : POSTCODE_WORDS.test(t) ? POSTCODE_FORMATS : [];
  const out: (ValueFormat | undefined)[] = [];
  const texts = new Set<string>();
  for (const format of [hinted, undefined, ...kind]) {
    const result = format ? formatValue(value, format) : ({ ok: true, text: value } as const);
    if (!result.ok || texts.has(result.text)) continue;
    texts.add(result.text);
    out.push(format);
  }
  return out;
}
