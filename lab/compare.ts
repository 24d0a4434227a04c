import type { FieldValue } from '../src/shared/case-file';
import { applySameAs } from './forms/same-as';

/** A field whose submitted value is not what the case file asked for. null: the field is absent. */
export interface FieldMismatch {
  field: string;
  expected: FieldValue | null;
  actual: FieldValue | null;
}

const isBlank = (v: FieldValue | undefined): boolean => v === undefined || v === '' || v === false;
const same = (a: FieldValue, b: FieldValue): boolean => (typeof a === 'string' && typeof b === 'string' ? a.trim() === b.trim() : a === b);

/**
 * Compares a case file's fields with what a portal recorded.
 *
 * - Every field of either side is compared. A field the case leaves out must be blank in the
 *   submission ('' or false), so a value the agent made up shows as a mismatch; a blank case
 *   value equals an absent or blank submitted one.
 * - Text is compared after trimming, exactly otherwise (case and spacing inside count).
 * - "Same as" checkboxes (`<target>_same_as_<source>`, e.g. `correspondence_same_as_business`):
 *   when the case sets one to true, every `<target>_*` field is expected to equal the case's
 *   `<source>_*` field (the portal copies the address server-side), whatever the case lists for it.
 */
export function compareSubmission(caseFields: Record<string, FieldValue>, submittedFields: Record<string, FieldValue>): FieldMismatch[] {
  const keys = [...new Set([...Object.keys(caseFields), ...Object.keys(submittedFields)])];
  const expected = applySameAs(caseFields, keys);
  const mismatches: FieldMismatch[] = [];
  for (const field of keys) {
    const want = expected[field];
    const got = submittedFields[field];
    if (isBlank(want) && isBlank(got)) continue;
    if (want !== undefined && got !== undefined && same(want, got)) continue;
    mismatches.push({ field, expected: want ?? null, actual: got ?? null });
  }
  return mismatches;
}
