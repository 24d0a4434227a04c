/**
 * Repeated groups in a case file: the same questions asked about several people (partners,
 * directors, co-applicants). A case file writes each person's answer under an indexed path,
 * `partners[0].full_name`, `partners[1].date_of_birth`: the group's name, the person's place in it
 * counted from 0, and the member field. Pages count people from 1 ("Partner 2"), so person
 * `partners[1]` is ordinal 2 on the page. Pure functions: the case schema, the guard, the planners
 * and the approval card all read paths and ordinals through this file.
 */

/** A plain field name: letters, digits and underscores, starting with a letter. */
const NAME = '[A-Za-z][A-Za-z0-9_]*';
export const PLAIN_FIELD = new RegExp(`^${NAME}$`);
/** A field of a repeated group: `partners[0].full_name` (index 0–99). */
const GROUP_PATH = new RegExp(`^(${NAME})\\[(\\d{1,2})\\]\\.(${NAME})$`);

interface GroupPath {
  group: string;
  /** The person's place in the group, from 0. */
  index: number;
  member: string;
}

/** The group, index and member of an indexed path, or null for a plain field name. */
export function parseGroupPath(field: string): GroupPath | null {
  const m = GROUP_PATH.exec(field);
  if (!m) return null;
  const index = Number(m[2]);
  if (m[2]!.length > 1 && m[2]!.startsWith('0')) return null;
  return { group: m[1]!, index, member: m[3]! };
}

export function groupPath(group: string, index: number, member: string): string {
  return `${group}[${index}].${member}`;
}

/** `partners[1].full_name` as the clerk reads it: `full_name of partners #2`. */
export function personWords(path: GroupPath): string {
  return `${path.member} of ${path.group} #${path.index + 1}`;
}

/**
 * What is wrong with a case's field names as groups, or null: an index that skips a person
 * (`partners[2]` without `partners[1]`), a group whose name is also a plain field.
 */
export function groupProblem(fieldNames: readonly string[]): string | null {
  const indexes = new Map<string, Set<number>>();
  const plain = new Set<string>();
  for (const name of fieldNames) {
    const path = parseGroupPath(name);
    if (!path) {
      plain.add(name);
      continue;
    }
    const seen = indexes.get(path.group) ?? new Set<number>();
    seen.add(path.index);
    indexes.set(path.group, seen);
  }
  for (const [group, seen] of indexes) {
    if (plain.has(group)) return `"${group}" is both a plain field and a repeated group; name one of them differently`;
    for (let i = 0; i < seen.size; i++) {
      if (!seen.has(i)) return `group "${group}" skips ${group}[${i}]: its people are numbered from 0 without gaps`;
    }
  }
  return null;
}

/** Each group of the case with how many people it holds and the member fields any of them has. */
export function groupsOf(fieldNames: Iterable<string>): Map<string, { count: number; members: Set<string> }> {
  const groups = new Map<string, { count: number; members: Set<string> }>();
  for (const name of fieldNames) {
    const path = parseGroupPath(name);
    if (!path) continue;
    const group = groups.get(path.group) ?? { count: 0, members: new Set<string>() };
    group.count = Math.max(group.count, path.index + 1);
    group.members.add(path.member);
    groups.set(path.group, group);
  }
  return groups;
}

const ORDINAL_WORDS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** Words a number follows that count pages and steps, not people. */
const NOT_A_PERSON = new Set(['step', 'page', 'section', 'part', 'question', 'stage', 'phase', 'screen', 'of', 'schedule', 'annex', 'form', 'line', 'flat', 'house', 'plot', 'floor', 'room', 'unit', 'no', 'number']);

/**
 * The ordinal a block's label gives its person, from 1: "Partner 2", "Co-applicant 2",
 * "Second applicant", "2nd director", "Partner two", "Applicant (2)"; null when it gives none, or
 * when its number counts something else ("Step 2 of 4", "Page 3", "Address line 2").
 */
export function ordinalOf(label: string): number | null {
  const text = label.toLowerCase().replace(/\s+/g, ' ').trim();
  if (!text || text.length > 120) return null;
  const word = new RegExp(`\\b(${ORDINAL_WORDS.join('|')})\\b`).exec(text);
  if (word) return ORDINAL_WORDS.indexOf(word[1]!) + 1;
  const numbered = /\b(\d{1,2})(?:st|nd|rd|th)\b/.exec(text);
  if (numbered) return Number(numbered[1]);
  const m = /\b([a-z][a-z-]*)\s*\(?\s*#?\s*(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s*\)?(?:\s*(of|\/)\s*\d+)?(?=$|[\s:,.)–-])/.exec(text);
  if (!m || NOT_A_PERSON.has(m[1]!) || /line$/.test(m[1]!)) return null;
  const n = /^\d+$/.test(m[2]!) ? Number(m[2]) : NUMBER_WORDS.indexOf(m[2]!) + 1;
  return n >= 1 ? n : null;
}

const singular = (word: string): string => word.replace(/(ies)$/, 'y').replace(/(ses|xes)$/, (s) => s.slice(0, -2)).replace(/s$/, '');
const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).map(singular);

/**
 * The case's group a block label names ("Partner 2" → `partners`, "Second director" →
 * `directors`), or undefined when it names none of them (or more than one).
 */
export function groupNamedIn(label: string, groups: Iterable<string>): string | undefined {
  const inLabel = new Set(words(label));
  const hits = [...groups].filter((g) => {
    const parts = words(g.replace(/_/g, ' '));
    return parts.length > 0 && parts.every((p) => inLabel.has(p));
  });
  return hits.length === 1 ? hits[0] : undefined;
}
