import type { FieldSpec, FieldValues, PortalSpec } from '../forms/spec';
import type { FieldError } from '../forms/validate';
import { flag, html, trusted, type Html } from '../html';

/** Markup both layouts share: ids, error summary, per-field errors, input attributes. */

export const inputId = (key: string) => `f-${key}`;
export const errorId = (key: string) => `f-${key}-error`;
export const hintId = (key: string) => `f-${key}-hint`;

export function errorFor(errors: readonly FieldError[], key: string): FieldError | undefined {
  return errors.find((e) => e.field === key);
}

/** The error summary at the top of a page: a role=alert box listing every error with a link to its field. */
export function errorSummary(errors: readonly FieldError[], href: (e: FieldError) => string = (e) => `#${inputId(e.field)}`): Html {
  if (errors.length === 0) return html``;
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
  <h2 id="error-summary-title">There is a problem</h2>
  <ul>${errors.map((e) => html`<li><a href="${href(e)}">${e.message}</a></li>`)}</ul>
</div>`;
}

export function fieldError(key: string, error: FieldError | undefined): Html {
  return error ? html`<p class="field-error" id="${errorId(key)}">${error.message}</p>` : html``;
}

export function notice(text: string | null): Html {
  return text ? html`<div class="notice" role="status">${text}</div>` : html``;
}

/** `aria-describedby` and `aria-invalid` for a control. */
export function describedBy(field: FieldSpec, error: FieldError | undefined, withHint: boolean): Html {
  const ids = [withHint && field.hint ? hintId(field.key) : null, error ? errorId(field.key) : null].filter(Boolean);
  return html`${ids.length ? html` aria-describedby="${ids.join(' ')}"` : ''}${error ? trusted(' aria-invalid="true"') : ''}`;
}

const INPUT_TYPE: Partial<Record<FieldSpec['kind'], string>> = { email: 'email', tel: 'tel', date: 'date' };
const INPUT_MODE: Partial<Record<FieldSpec['kind'], string>> = { count: 'numeric', amount: 'decimal', tel: 'numeric' };

export interface InputOptions {
  withHint: boolean;
  /** Print maxlength (the original layout does; the redesigned one forgets). */
  maxLengthAttr: boolean;
  /** CSS class of the input. */
  className: string;
}

export function textInput(field: FieldSpec, values: FieldValues, error: FieldError | undefined, opts: InputOptions): Html {
  const value = values[field.key];
  const type = INPUT_TYPE[field.kind] ?? 'text';
  const mode = INPUT_MODE[field.kind];
  return html`<input class="${opts.className}" id="${inputId(field.key)}" name="${field.key}" type="${type}"${mode ? html` inputmode="${mode}"` : ''}${
    opts.maxLengthAttr && field.maxLength ? html` maxlength="${field.maxLength}"` : ''
  }${flag('required', field.required)} value="${typeof value === 'string' ? value : ''}" autocomplete="off"${describedBy(field, error, opts.withHint)}>`;
}

export function selectInput(field: FieldSpec, values: FieldValues, error: FieldError | undefined, placeholder: string, withHint: boolean, className: string): Html {
  const value = values[field.key];
  return html`<select class="${className}" id="${inputId(field.key)}" name="${field.key}"${flag('required', field.required)}${describedBy(field, error, withHint)}>
  <option value="">${placeholder}</option>${(field.options ?? []).map((o) => html`<option value="${o}"${flag('selected', o === value)}>${o}</option>`)}
</select>`;
}

/** A radio: the first one carries the field's id, so error links land on the group. */
export function radioInput(field: FieldSpec, option: string, index: number, values: FieldValues, error: FieldError | undefined): Html {
  const id = index === 0 ? inputId(field.key) : `${inputId(field.key)}-${index}`;
  return html`<input type="radio" id="${id}" name="${field.key}" value="${option}"${flag('checked', values[field.key] === option)}${flag('required', field.required)}${
    error ? trusted(' aria-invalid="true"') : ''
  }>`;
}

export function checkboxInput(field: FieldSpec, values: FieldValues, error: FieldError | undefined, withId = true): Html {
  return html`<input type="checkbox"${withId ? html` id="${inputId(field.key)}"` : ''} name="${field.key}" value="yes"${flag('checked', values[field.key] === true)}${
    error ? html` aria-invalid="true" aria-describedby="${errorId(field.key)}"` : ''
  }>`;
}

/** How a value reads on the review page. */
export function displayValue(field: FieldSpec, values: FieldValues): string {
  const value = values[field.key];
  if (field.kind === 'declaration') return value === true ? 'Confirmed' : 'Not confirmed';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (!value) return 'Not provided';
  if (field.kind === 'date') {
    const [y, m, d] = value.split('-');
    const month = new Date(Date.UTC(Number(y), Number(m) - 1, 1)).toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
    return `${Number(d)} ${month} ${y}`;
  }
  return value;
}

export function fieldsOf(portal: PortalSpec, keys: readonly string[]): FieldSpec[] {
  return keys.map((k) => portal.fields.find((f) => f.key === k)).filter((f): f is FieldSpec => f !== undefined);
}

export function requiredMark(field: FieldSpec): Html {
  return field.required ? trusted('<span class="req" aria-hidden="true"> *</span>') : html``;
}
