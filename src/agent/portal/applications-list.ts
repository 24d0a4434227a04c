import { htmlText } from '../../shared/html-text';
import { firstMatch, linearPattern } from '../../shared/linear-pattern';
/**
 * Reading a portal's "your applications" list to answer one question before any retried
 * submission: is THIS case's application already there?
 *
 * A list row is this case's when it shows the draft id the run saved, the case id, or a client
 * reference made only of this case's own values (the lab shows the registration number, the
 * consumer number, or "PTRC number / return period"): every word of that cell must be a case
 * value, and at least one of those values must be an identifier (a value with a digit, five
 * characters or more). A row dated before the first submit attempt is an older application.
 */

interface ListedApplication {
  applicationNumber: string;
  /** Why the row is this case's, for the step log: `reference "TN/SHP/2022/009847"`. */
  matchedBy: string;
}

interface ApplicationsListQuery {
  /** The portal profile's application-number pattern (regex source; group 1 when it has one). */
  numberPattern: string;
  caseId: string;
  /** The case's text values (case fields and the clerk's answers). */
  caseValues: readonly string[];
  draftId?: string;
  /** YYYY-MM-DD: rows dated before this day are not this submission. */
  notBefore?: string;
}

const ROW = /<(tr|li|article)\b[^>]*>([\s\S]*?)<\/\1>/gi;
const CELL = /<(td|th|dd)\b[^>]*>([\s\S]*?)<\/\1>/gi;
const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})\b/g;
const SEPARATORS = /[\s/|,;:·–—()-]+/g;

/** The newest row of `html` that is this case's application, or undefined. */
export function findApplicationInList(html: string, query: ApplicationsListQuery): ListedApplication | undefined {
  return newestOfThisCase(listedApplications(html, query));
}

/** The newest of `listed` (as `listedApplications` answers, newest first) that is this case's, or undefined. */
export function newestOfThisCase(listed: readonly ListedRow[]): ListedApplication | undefined {
  return listed.find((a): a is ListedApplication => a.matchedBy !== undefined);
}

/** A row of the list: `matchedBy` when it is this case's, `untied` when nothing ties it to any case. */
export interface ListedRow {
  applicationNumber: string;
  matchedBy?: string;
  untied?: true;
}

/**
 * Every row of `html` with an application number not dated before the first submit attempt, newest
 * first, one a number. `matchedBy` says why a row is this case's; `untied`: nothing on the row but
 * its number, dates and plain words (a list of numbers only), so it may be this case's as well as
 * another's. A row with neither names an identifier of its own: another case's.
 */
export function listedApplications(html: string, query: ApplicationsListQuery): ListedRow[] {
  const matches: (ListedRow & { date: string })[] = [];
  for (const [, , row] of html.matchAll(ROW)) {
    if (row === undefined) continue;
    const text = htmlText(row);
    const number = numberIn(text, query.numberPattern);
    if (!number) continue;
    const dates = [...text.matchAll(ISO_DATE)].map((m) => m[1]!);
    if (query.notBefore && dates.length > 0 && dates.every((d) => d < query.notBefore!)) continue;
    const matchedBy = whyThisCase(row, text, number, query);
    const untied = !matchedBy && !namesAnIdentifier(text, number);
    matches.push({ applicationNumber: number, ...(matchedBy ? { matchedBy } : {}), ...(untied ? { untied: true as const } : {}), date: dates.sort().at(-1) ?? '' });
  }
  matches.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const seen = new Set<string>();
  return matches.filter((m) => !seen.has(m.applicationNumber) && seen.add(m.applicationNumber)).map(({ date: _date, ...m }) => m);
}

function whyThisCase(row: string, text: string, number: string, query: ApplicationsListQuery): string | undefined {
  if (query.draftId && text.includes(query.draftId)) return `draft id ${query.draftId}`;
  if (text.includes(query.caseId)) return `case id ${query.caseId}`;
  const values = [...new Set(query.caseValues.map((v) => v.trim()).filter((v) => v.length >= 3))].sort((a, b) => b.length - a.length);
  for (const cell of cellsOf(row)) {
    if (!cell || cell.includes(number) || /^\d{4}-\d{2}-\d{2}$/.test(cell)) continue;
    if (explainedBy(cell, values)) return `reference "${cell}"`;
  }
  return undefined;
}

/**
 * Dates, times and amounts in the spellings lists print them (2026-12-07T10:42:00Z, 07/12/2026,
 * 7.12.2026, 12-Dec-2026, 10:42, Rs. 1,500.00, ₹1500): none of them names a case.
 */
const NOT_A_REFERENCE = [
  /\b\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?/g,
  /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/g,
  /\b\d{1,2}[\s/-]*(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[\s/-]*\d{2,4}\b/gi,
  /\b\d{1,2}:\d{2}(?::\d{2})?\b/g,
  /(?:rs\.?|inr|₹)\s*[\d,]+(?:\.\d+)?/gi,
  /\b\d{1,3}(?:,\d{2,3})+(?:\.\d+)?\b|\b\d+\.\d{2}\b/g,
];

/**
 * The row's text, its number, dates, times and amounts taken out, still holds an identifier (a word
 * of five characters or more with a digit): a reference of some case, so the row is another case's.
 * Anything it cannot tell stays untied (it may be this case's): the safe side, where the run stops
 * for the clerk instead of sending the form again.
 */
function namesAnIdentifier(text: string, number: string): boolean {
  const rest = NOT_A_REFERENCE.reduce((t, pattern) => t.replace(pattern, ' '), text.split(number).join(' '));
  return rest.split(/[\s|,;:·–—()]+/).some((word) => word.length >= 5 && /\d/.test(word));
}

/** Every word of `cell` is one of the values, and one of them is an identifier. */
function explainedBy(cell: string, values: readonly string[]): boolean {
  let rest = cell.toLowerCase();
  let identifier = false;
  for (const value of values) {
    const v = value.toLowerCase();
    if (!rest.includes(v)) continue;
    rest = rest.split(v).join(' ');
    if (/\d/.test(v) && v.length >= 5) identifier = true;
  }
  return identifier && rest.replace(SEPARATORS, '') === '';
}

function numberIn(text: string, pattern: string): string | undefined {
  return firstMatch(linearPattern(pattern), text);
}

function cellsOf(row: string): string[] {
  return [...row.matchAll(CELL)].map((m) => htmlText(m[2]!));
}
