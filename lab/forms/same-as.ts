import type { FieldValues } from './spec';

/**
 * "Same as" checkboxes follow one naming rule: `<target>_same_as_<source>` (e.g.
 * `correspondence_same_as_business`). When it is true, every field `<target>_<rest>` takes the
 * value of `<source>_<rest>`. The portal copies server-side with this rule, and
 * `compareSubmission` expects the copies by the same rule, so both always agree.
 */
const SAME_AS = /^([a-z][a-z0-9]*)_same_as_([a-z][a-z0-9]*)$/;

export interface SameAsRule {
  /** The checkbox key. */
  readonly key: string;
  readonly targetPrefix: string;
  readonly sourcePrefix: string;
}

export function sameAsRule(key: string): SameAsRule | null {
  const m = SAME_AS.exec(key);
  if (!m) return null;
  return { key, targetPrefix: `${m[1]}_`, sourcePrefix: `${m[2]}_` };
}

/**
 * The fields a ticked rule fills, with the field each is copied from. Only pairs whose source
 * exists count: `billing_unit` is not a copy of a (non-existent) `supply_unit`.
 */
export function copiedPairs(rule: SameAsRule, keys: Iterable<string>): Array<{ target: string; source: string }> {
  const all = new Set(keys);
  const pairs: Array<{ target: string; source: string }> = [];
  for (const key of all) {
    if (key === rule.key || !key.startsWith(rule.targetPrefix)) continue;
    const source = rule.sourcePrefix + key.slice(rule.targetPrefix.length);
    if (all.has(source)) pairs.push({ target: key, source });
  }
  return pairs;
}

/** The fields with every ticked "same as" rule applied (a copy; the input is left alone). */
export function applySameAs(fields: FieldValues, keys: Iterable<string> = Object.keys(fields)): FieldValues {
  const out: FieldValues = { ...fields };
  const all = [...keys];
  for (const key of all) {
    const rule = sameAsRule(key);
    if (!rule || out[key] !== true) continue;
    for (const { target, source } of copiedPairs(rule, all)) out[target] = out[source] ?? '';
  }
  return out;
}

/** The "same as" checkbox that makes this field optional when ticked, if any. */
export function sameAsControlling(key: string, keys: Iterable<string>): string | null {
  const all = [...keys];
  for (const candidate of all) {
    const rule = sameAsRule(candidate);
    if (rule && copiedPairs(rule, all).some((p) => p.target === key)) return candidate;
  }
  return null;
}
