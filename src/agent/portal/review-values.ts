import type { Page } from 'playwright-core';
import { caseFieldNames, fieldForPerson, normaliseLabel } from '../decide/rules/field-names';
import { reviewPage } from '../decide/anthropic/page-block';
import { ordinalOf } from '../../shared/case-groups';
import type { CaseFile } from '../../shared/case-file';
import type { ReviewRow } from '../../shared/clerk';
import type { Observation } from '../../shared/observation';

/**
 * A final-review page's values beside the case: what the portal says it will file, compared field
 * by field with the case (and the clerk's answers), for the submission's approval card. Read from
 * the run's own look at the page (its observation), so a busy desk still shows it.
 */

interface PageRow {
  label: string;
  value: string;
  /** The heading the row sits under ("Partner 2"): on a page that lists several people, whose row it is. */
  section?: string;
}

/** The review rows the run read on a final-review page (its "Change <label>" rows), beside the case; null when it shows none. */
export function reviewedValues(observation: Observation, caseFile: Pick<CaseFile, 'fields' | 'aliases' | 'declarations'>, clerkValues: Record<string, string> = {}): ReviewRow[] | null {
  const rows = reviewPage(observation, observation.text)?.rows;
  if (!rows || rows.length === 0) return null;
  return compareWithCase(rows, caseFile, clerkValues);
}

/** The label/value rows of a review page read from the live page: `<dt>`/`<dd>` pairs and table rows headed by a `<th>` (and the title and top headings, to tell a review page). */
async function reviewRowsOnPage(page: Page): Promise<{ lines: string[]; rows: PageRow[] }> {
  return page.evaluate(() => {
    const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const headings = Array.from(document.querySelectorAll('h2, h3, h4, caption, legend'));
    // The last heading before the row in document order: on a page listing several people, whose row it is.
    const sectionOf = (el: Element): { section?: string } => {
      let found: Element | undefined;
      for (const h of headings) {
        if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) found = h;
        else break;
      }
      const t = found ? text(found).slice(0, 120) : '';
      return t ? { section: t } : {};
    };
    const rows: { label: string; value: string; section?: string }[] = [];
    for (const dt of Array.from(document.querySelectorAll('dt'))) {
      let dd = dt.nextElementSibling;
      while (dd && dd.tagName !== 'DD' && dd.tagName !== 'DT') dd = dd.nextElementSibling;
      if (dd && dd.tagName === 'DD') rows.push({ label: text(dt), value: text(dd), ...sectionOf(dt) });
    }
    for (const tr of Array.from(document.querySelectorAll('tr'))) {
      const th = tr.querySelector(':scope > th');
      const td = tr.querySelector(':scope > td');
      if (th && td && tr.closest('thead') === null) rows.push({ label: text(th), value: text(td), ...sectionOf(tr) });
    }
    const lines = [document.title, ...Array.from(document.querySelectorAll('h1, h2')).map((h) => text(h))];
    return { lines, rows: rows.slice(0, 200) };
  });
}

/**
 * The review rows read from the live page beside the case; null when it shows none, cannot be read
 * within `timeoutMs`, or (given `finalReviewPatterns`) its title and top headings name no final review.
 */
export async function reviewedOnPage(
  page: Page,
  caseFile: Pick<CaseFile, 'fields' | 'aliases' | 'declarations'>,
  clerkValues: Record<string, string> = {},
  { timeoutMs = 4_000, finalReviewPatterns }: { timeoutMs?: number; finalReviewPatterns?: readonly string[] } = {},
): Promise<ReviewRow[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const read = await Promise.race([reviewRowsOnPage(page), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)))])
    .catch(() => null)
    .finally(() => clearTimeout(timer));
  if (!read || read.rows.length === 0) return null;
  const lines = read.lines.map((l) => l.toLowerCase());
  if (finalReviewPatterns && !finalReviewPatterns.some((p) => lines.some((l) => l.includes(p.toLowerCase())))) return null;
  return compareWithCase(read.rows, caseFile, clerkValues);
}

/**
 * Each page row beside the case value it came from (by label, the way the rules planner maps labels
 * to fields), per person: a "Full name" row under "Partner 2" is compared with `partners[1].full_name`.
 */
export function compareWithCase(rows: readonly PageRow[], caseFile: Pick<CaseFile, 'fields' | 'aliases' | 'declarations'>, clerkValues: Record<string, string> = {}): ReviewRow[] {
  const values: Record<string, string | boolean> = { ...caseFile.fields, ...clerkValues };
  const fieldSet = new Set(Object.keys(values));
  const names = caseFieldNames(fieldSet, caseFile.aliases ?? {});
  return rows.map((row) => {
    const ordinal = row.section ? ordinalOf(row.section) : null;
    const section = row.section && ordinal ? { name: row.section, ordinal } : undefined;
    const named = names.fieldFor(row.label) ?? names.fieldFor(row.label.replace(/\s*\(.*\)\s*$/, ''));
    const field = fieldForPerson(named, fieldSet, section);
    // A question the case answers per person, on a row of a person it has no answer for (or cannot tell whose): never matched by value to someone else's.
    if (field === undefined && named !== undefined && !fieldSet.has(named)) return { label: row.label, pageValue: row.value, match: 'not_in_case' as const };
    if (field === undefined) {
      if (/^declaration/i.test(row.label) && (caseFile.declarations ?? []).length > 0) {
        return { label: row.label, pageValue: row.value, field: 'declarations', caseValue: 'confirmed with the client', match: /^confirmed$/i.test(row.value) ? 'same' : 'differs' };
      }
      // No field by that label: a value that equals a case value still says where it came from.
      const byValue = Object.entries(values).find(([, v]) => typeof v === 'string' && v !== '' && sameValue(v, row.value));
      if (byValue) return { label: row.label, pageValue: row.value, field: byValue[0], caseValue: String(byValue[1]), match: 'same' };
      // Left empty, and the case has nothing for it either: nothing is submitted there.
      if (EMPTY_ON_PAGE.test(row.value.trim())) return { label: row.label, pageValue: row.value, caseValue: 'nothing in the case', match: 'same' };
      return { label: row.label, pageValue: row.value, match: 'not_in_case' };
    }
    const caseValue = values[field]!;
    return { label: row.label, pageValue: row.value, field, caseValue: shown(caseValue), match: sameValue(caseValue, row.value) ? 'same' : 'differs' };
  });
}

const EMPTY_ON_PAGE = /^(|-|—|not provided|none|not given|not applicable|n\/a)$/i;

function shown(value: string | boolean): string {
  return typeof value === 'boolean' ? (value ? 'Yes' : 'No') : value;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The page shows the case value: same text (case and punctuation aside), yes/no for a tick, a date in another common spelling. */
export function sameValue(caseValue: string | boolean, pageValue: string): boolean {
  const page = normaliseLabel(pageValue);
  if (typeof caseValue === 'boolean') return caseValue ? /^(yes|confirmed|true|ticked|selected)$/.test(page) : /^(no|not confirmed|false|not ticked|not selected|not provided)$/.test(page);
  if (normaliseLabel(caseValue) === page) return true;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(caseValue);
  if (date) {
    const [, y, m, d] = date as unknown as [string, string, string, string];
    const month = MONTHS[Number(m) - 1] ?? '';
    const spellings = [`${Number(d)} ${month} ${y}`, `${d} ${month} ${y}`, `${Number(d)} ${month.slice(0, 3)} ${y}`, `${d} ${m} ${y}`, `${y} ${m} ${d}`, `${month} ${Number(d)} ${y}`];
    return spellings.some((s) => normaliseLabel(s) === page);
  }
  return false;
}

