import { createHash } from 'node:crypto';
import { fileLine, MAX_VALUES, pushPair, type CarriedFile, type CarriedValue } from '../../shared/control-submission';

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
  const push = (name: string, value: string, file?: CarriedFile): void => pushPair(values, name, value, file);
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
