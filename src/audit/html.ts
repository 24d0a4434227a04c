/**
 * HTML built by a tagged template that escapes every interpolated value. Page text is untrusted
 * (an attack page puts `<script>` in its headings), so escaping is the default and markup is the
 * exception: only values already wrapped as `SafeHtml` — the output of `html` itself — go in raw.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${untrusted}</p>\`` — interpolations are escaped; nested `html` results are kept as markup. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Markup the caller vouches for (a constant style sheet, a data: URI built from bytes). */
export function trusted(text: string): SafeHtml {
  return new SafeHtml(text);
}
