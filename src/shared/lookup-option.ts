/**
 * A look-up's result (an address a portal lists after "Find address") held against the case: an
 * option's lines are its parts between commas, semicolons or line breaks, and each must be a case
 * value. Pure: the guard checks a chosen option with it, the rules planner picks one with it.
 */

/** An option's lines: its parts between commas, semicolons or line breaks. */
export function lookupLines(option: string): string[] {
  return option
    .split(/[,;\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);
}

const words = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const compact = (text: string): string => text.replace(/[\s-]+/g, '').toUpperCase();

/** A case value is the line: the same words, or (a line with digits, a postcode) the same characters without spaces. */
export function sameLine(value: string | boolean, line: string): boolean {
  if (typeof value !== 'string' || !value.trim()) return false;
  if (words(value) === words(line)) return true;
  return /\d/.test(line) && compact(value) === compact(line);
}

/** The case field each line of the option is, in order; null when some line is no case value. */
export function linesToFields(option: string, values: readonly (readonly [string, string | boolean])[]): string[] | null {
  const fields: string[] = [];
  for (const line of lookupLines(option)) {
    const hit = values.find(([, v]) => sameLine(v, line));
    if (!hit) return null;
    fields.push(hit[0]);
  }
  return fields.length ? fields : null;
}
