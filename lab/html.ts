/** HTML text that is already safe to put in a page. Everything else is escaped. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map((p: Part) => render(p)).join('');
  return escapeHtml(String(part));
}

/** Tagged template: interpolated values are escaped unless they are `Html`; arrays are joined; null/false print nothing. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Markup written by the lab itself (never from a request). */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** An attribute that is present or absent: `attr('required', true)` → ` required`. */
export function flag(name: string, on: boolean | undefined): Html {
  return new Html(on ? ` ${name}` : '');
}
