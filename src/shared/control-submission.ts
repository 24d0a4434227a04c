import { z } from 'zod';

/**
 * What a control sends when activated, and what a request carries, as name/value pairs the clerk
 * reads on a card and the commit gate compares: a control read in the page when the clerk was
 * asked about it (or pressed it, in a take-over) must send exactly what its request carries.
 */

/** A file a multipart form carries: the name it is sent under, and (when the body's bytes were given) its size and sha256. */
export interface CarriedFile {
  file: string;
  bytes?: number;
  sha256?: string;
}

/** The name/value pairs a request carries: its query, and a form or JSON body. */
export interface CarriedValue {
  name: string;
  value: string;
  /** Set for a file part: the value then reads `pan.pdf, sha256 …, 1234 bytes`. */
  file?: CarriedFile;
}

/**
 * At most this many pairs, each value at most this long (longer ones cut with an ellipsis), on a
 * card and in a comparison. A card shows every value whole (it scrolls): the bound only keeps a
 * runaway body from filling the clerk's queue; a value cut here is marked by its ellipsis.
 */
export const MAX_VALUES = 200;
const MAX_VALUE = 64 * 1024;

/** Adds a pair within those bounds: the one way pairs are kept, so a control's and a request's compare alike. */
export function pushPair(values: CarriedValue[], name: string, value: string, file?: CarriedFile): void {
  if (values.length < MAX_VALUES) values.push({ name: name.slice(0, 120), value: value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value, ...(file ? { file } : {}) });
}

/**
 * What a control sends when activated, read in the page when the clerk was asked about it
 * (`submissionAt`, `submissionOfFocus`): a link's address, or a form's address, method, encoding and entries.
 */
export const ControlSubmission = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('link'), url: z.string() }),
  z.object({
    kind: z.literal('form'),
    url: z.string(),
    method: z.string(),
    enctype: z.string(),
    entries: z.array(z.union([z.object({ name: z.string(), value: z.string() }), z.object({ name: z.string(), file: z.string(), bytes: z.number() })])).max(10_000),
  }),
]);
export type ControlSubmission = z.infer<typeof ControlSubmission>;

/**
 * The first value a request carries that the control did not hold when the clerk approved it,
 * in words (`"plot_site" is "Plot 99"; you approved it as "Plot 14"`), or null when it carries
 * the same pairs (in any order). A form's GET replaces its address's query with its entries; a
 * POST keeps the query and sends the entries as its body. Files compare by the name they are sent
 * under and their size (the page's world cannot hash them here; the card shows the sha256 that leaves).
 */
export function valueNotApproved(approved: ControlSubmission, carried: readonly CarriedValue[]): string | null {
  const expected = sentByControl(approved);
  if (expected === null) return 'the address the control named does not parse';
  // Forms send line breaks as CRLF whatever the box held; a file is its name and size.
  const key = (v: CarriedValue) => `${v.name}\u0000${v.file ? `\u0000file:${v.file.file}:${v.file.bytes ?? '?'}` : v.value.replace(/\r\n?/g, '\n')}`;
  const left = new Map<string, number>();
  for (const e of expected) left.set(key(e), (left.get(key(e)) ?? 0) + 1);
  for (const c of carried) {
    const n = left.get(key(c)) ?? 0;
    if (n > 0) {
      left.set(key(c), n - 1);
      continue;
    }
    const before = expected.find((e) => e.name === c.name);
    const shown = c.file ? `a file named "${c.file.file}"` : `"${c.value}"`;
    if (!before) return `"${c.name}" is ${shown}, which the control did not send when you were asked`;
    return `"${c.name}" is ${shown}; you were asked about ${before.file ? 'another file' : `"${before.value}"`}`;
  }
  const missing = expected.find((e) => (left.get(key(e)) ?? 0) > 0);
  if (missing) return `"${missing.name}" was dropped from what you were asked about`;
  return null;
}

/**
 * What a control sends, as the pairs `carriedValues` reads from its request: a link's query; a
 * form's entries (after its address's query for a POST; in place of it for a GET), files by name
 * and size. Null when the address does not parse.
 */
export function sentByControl(control: ControlSubmission): CarriedValue[] | null {
  const values: CarriedValue[] = [];
  const push = (name: string, value: string, file?: CarriedFile): void => pushPair(values, name, value, file);
  let url: URL;
  try {
    url = new URL(control.url);
  } catch {
    return null;
  }
  if (control.kind === 'link' || control.method !== 'GET') for (const [name, value] of url.searchParams) push(name, value);
  if (control.kind === 'form') {
    for (const e of control.entries) {
      if ('file' in e) push(e.name, fileLine({ file: e.file, bytes: e.bytes }), { file: e.file, bytes: e.bytes });
      else push(e.name, e.value);
    }
  }
  return values;
}


/** How a file part reads on the card: `pan.pdf, 1,234 bytes, sha256 3f2a…` (the whole hash: the clerk can compare it with the step log). */
export function fileLine(file: CarriedFile): string {
  const name = file.file === '' ? '(a file with no name)' : file.file;
  if (file.sha256 !== undefined) return `${name}, ${file.bytes ?? 0} bytes, sha256 ${file.sha256}`;
  return file.bytes === undefined ? `${name} (a file; its bytes were not readable here)` : `${name}, ${file.bytes} bytes`;
}
