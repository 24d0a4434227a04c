/** The name/value pairs a request carries: its query, and a form or JSON body. */
interface CarriedValue {
  name: string;
  value: string;
}

const MAX_VALUES = 200;
const MAX_VALUE = 500;

/**
 * What a request would send, as the clerk should see it on the approval card: the query's
 * pairs, then the body's (url-encoded forms, multipart forms without their files, flat JSON).
 * Bounded in count and length; a body of another kind is one pair named `(body)`.
 */
export function carriedValues(url: string, postData: string | null, contentType: string | undefined): CarriedValue[] {
  const values: CarriedValue[] = [];
  const push = (name: string, value: string): void => {
    if (values.length < MAX_VALUES) values.push({ name: name.slice(0, 120), value: value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value });
  };
  try {
    for (const [name, value] of new URL(url).searchParams) push(name, value);
  } catch {
    // An address that does not parse carries nothing to show.
  }
  if (!postData) return values;
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('multipart/form-data')) {
    for (const part of postData.split(/\r?\n--/)) {
      const name = /content-disposition:[^\n]*\bname="([^"]*)"/i.exec(part)?.[1];
      if (name === undefined) continue;
      if (/\bfilename="/i.test(part)) {
        push(name, '(a file)');
        continue;
      }
      const body = part.split(/\r?\n\r?\n/).slice(1).join('\n\n').replace(/\r?\n$/, '');
      push(name, body);
    }
    return values;
  }
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
