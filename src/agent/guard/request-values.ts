import { createHash } from 'node:crypto';
import { z } from 'zod';

/** A file a multipart form carries: the name it is sent under, and (when the body's bytes were given) its size and sha256. */
export interface CarriedFile {
  file: string;
  bytes?: number;
  sha256?: string;
}

/** The name/value pairs a request carries: its query, and a form or JSON body. */
interface CarriedValue {
  name: string;
  value: string;
  /** Set for a file part: the value then reads `pan.pdf, sha256 …, 1234 bytes`. */
  file?: CarriedFile;
}

const MAX_VALUES = 200;
const MAX_VALUE = 500;

/**
 * What a control sends when activated, read in the page when the clerk was asked about it
 * (`submissionAt`): a link's address, or a form's address, method, encoding and entries.
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
  const push = (name: string, value: string, file?: CarriedFile): void => {
    if (values.length < MAX_VALUES) values.push({ name: name.slice(0, 120), value: value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value, ...(file ? { file } : {}) });
  };
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

/**
 * What a request would send, as the clerk should see it on the approval card: the query's
 * pairs, then the body's (url-encoded forms, multipart forms, flat JSON). A file in a multipart
 * form is named with the file name it is sent under and, when the body's bytes are given
 * (`postBytes`, binary-safe), the size and sha256 of the bytes that would leave, so the card can
 * say which case document it is. Bounded in count and length; a body of another kind is one pair
 * named `(body)`.
 */
export function carriedValues(url: string, postData: string | null, contentType: string | undefined, postBytes?: Uint8Array): CarriedValue[] {
  const values: CarriedValue[] = [];
  const push = (name: string, value: string, file?: CarriedFile): void => {
    if (values.length < MAX_VALUES) values.push({ name: name.slice(0, 120), value: value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value, ...(file ? { file } : {}) });
  };
  try {
    for (const [name, value] of new URL(url).searchParams) push(name, value);
  } catch {
    // An address that does not parse carries nothing to show.
  }
  if (!postData && !postBytes) return values;
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('multipart/form-data')) {
    if (postBytes) {
      for (const part of multipartParts(Buffer.from(postBytes.buffer, postBytes.byteOffset, postBytes.byteLength), contentType ?? '')) {
        if (part.filename === undefined) {
          push(part.name, part.bytes.toString('utf8'));
          continue;
        }
        const file = { file: part.filename, bytes: part.bytes.length, sha256: createHash('sha256').update(part.bytes).digest('hex') };
        push(part.name, fileLine(file), file);
      }
      return values;
    }
    for (const part of (postData ?? '').split(/\r?\n--/)) {
      const name = /content-disposition:[^\n]*\bname="([^"]*)"/i.exec(part)?.[1];
      if (name === undefined) continue;
      const filename = /\bfilename="([^"]*)"/i.exec(part)?.[1];
      if (filename !== undefined) {
        push(name, fileLine({ file: filename }), { file: filename });
        continue;
      }
      const body = part.split(/\r?\n\r?\n/).slice(1).join('\n\n').replace(/\r?\n$/, '');
      push(name, body);
    }
    return values;
  }
  if (!postData) return values;
  if (type.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(postData);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) push(name, typeof value === 'string' ? value : JSON.stringify(value));
        return values;
      }
    } catch {
      // Not JSON after all: shown as the raw body below.
    }
    push('(body)', postData);
    return values;
  }
  if (type === '' || type.includes('x-www-form-urlencoded') || type.includes('text/plain')) {
    for (const [name, value] of new URLSearchParams(postData)) push(name, value);
    return values;
  }
  push('(body)', postData);
  return values;
}

/** How a file part reads on the card: `pan.pdf, 1,234 bytes, sha256 3f2a…` (the whole hash: the clerk can compare it with the step log). */
function fileLine(file: CarriedFile): string {
  const name = file.file === '' ? '(a file with no name)' : file.file;
  if (file.sha256 !== undefined) return `${name}, ${file.bytes ?? 0} bytes, sha256 ${file.sha256}`;
  return file.bytes === undefined ? `${name} (a file; its bytes were not readable here)` : `${name}, ${file.bytes} bytes`;
}

/** The parts of a multipart/form-data body, read from its bytes (file contents stay byte-exact). */
function multipartParts(body: Buffer, contentType: string): { name: string; filename?: string; bytes: Buffer }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return [];
  const marker = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: { name: string; filename?: string; bytes: Buffer }[] = [];
  let at = body.indexOf(marker);
  while (at >= 0 && parts.length < MAX_VALUES) {
    const next = body.indexOf(marker, at + marker.length);
    if (next < 0) break;
    const chunk = body.subarray(at + marker.length + 2, Math.max(at + marker.length + 2, next - 2));
    const split = chunk.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = chunk.subarray(0, split).toString('utf8');
      const name = /\bname="([^"]*)"/i.exec(head)?.[1];
      const filename = /\bfilename="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) parts.push({ name, ...(filename !== undefined ? { filename } : {}), bytes: chunk.subarray(split + 4) });
    }
    at = next;
  }
  return parts;
}
