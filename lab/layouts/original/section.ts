import { sectionKeys, type FieldSpec, type SectionItem } from '../../forms/spec';
import { html, type Html } from '../../html';
import {
  checkboxInput,
  errorFor,
  errorId,
  errorSummary,
  fieldError,
  fieldsOf,
  hintId,
  inputId,
  notice,
  radioInput,
  requiredMark,
  selectInput,
  textInput,
} from '../controls';
import type { SectionView } from '../view';

/** A form section in the original layout: one field per block, labels tied with for/id, real buttons. */

export function originalSection(view: SectionView): Html {
  const { sections, index } = view;
  const section = sections[index]!;
  const back = index === 0 ? '/' : `/apply/${sections[index - 1]!.slug}`;
  const known = new Set(sectionKeys(section));
  const errors = view.errors.filter((e) => known.has(e.field));
  return html`<a class="back" href="${back}">Back</a>
<p class="step">Step ${index + 1} of ${sections.length}: ${section.title}</p>
<h1>${section.title}</h1>
${errorSummary(errors)}${notice(view.notice)}
<form method="post" action="/apply/${section.slug}" novalidate>
${section.items.map((item) => renderItem(item, view, errors))}
<div class="actions">
  <button class="button" type="submit" name="_action" value="next">Save and continue</button>
  <button class="button button--secondary" type="submit" name="_action" value="save">Save draft</button>
</div>
</form>`;
}

function renderItem(item: SectionItem, view: SectionView, errors: SectionView['errors']): Html {
  if (typeof item !== 'string') {
    const keys = 'group' in item ? item.keys : item.columns;
    const legend = 'group' in item ? item.group : null;
    const boxes = fieldsOf(view.portal, keys);
    if (legend) {
      return html`<div class="field"><fieldset><legend>${legend}</legend>
${boxes.map((f) => html`<div class="checkbox">${checkboxInput(f, view.values, errorFor(errors, f.key))}<label for="${inputId(f.key)}">${f.label}</label></div>`)}
</fieldset></div>`;
    }
    return html`${boxes.map((f) => renderField(f, view, errors))}`;
  }
  const field = view.portal.fields.find((f) => f.key === item);
  return field ? renderField(field, view, errors) : html``;
}

function hint(field: FieldSpec): Html {
  return field.hint ? html`<p class="hint" id="${hintId(field.key)}">${field.hint}</p>` : html``;
}

function renderField(field: FieldSpec, view: SectionView, errors: SectionView['errors']): Html {
  const error = errorFor(errors, field.key);
  const cls = error ? 'field field--error' : 'field';
  switch (field.kind) {
    case 'radio':
      return html`<div class="${cls}"><fieldset${error || field.hint ? html` aria-describedby="${[field.hint ? hintId(field.key) : '', error ? errorId(field.key) : ''].filter(Boolean).join(' ')}"` : ''}>
<legend>${field.label}${requiredMark(field)}</legend>${hint(field)}${fieldError(field.key, error)}
${(field.options ?? []).map((o, i) => html`<div class="radio">${radioInput(field, o, i, view.values, error)}<label for="${i === 0 ? inputId(field.key) : `${inputId(field.key)}-${i}`}">${o}</label></div>`)}
</fieldset></div>`;
    case 'select':
      return html`<div class="${cls}"><label class="label" for="${inputId(field.key)}">${field.label}${requiredMark(field)}</label>${hint(field)}${fieldError(field.key, error)}
${selectInput(field, view.values, error, 'Select an option', true, '')}</div>`;
    case 'checkbox':
      return html`<div class="${cls}"><div class="checkbox">${checkboxInput(field, view.values, error)}<label for="${inputId(field.key)}">${field.label}</label></div>${hint(field)}</div>`;
    case 'declaration':
      return html`<div class="${cls} declaration">${fieldError(field.key, error)}<div class="checkbox">${checkboxInput(field, view.values, error)}<label for="${inputId(field.key)}">${field.label}</label></div></div>`;
    default:
      return html`<div class="${cls}"><label class="label" for="${inputId(field.key)}">${field.label}${requiredMark(field)}</label>${hint(field)}${fieldError(field.key, error)}
${textInput(field, view.values, error, { withHint: true, maxLengthAttr: true, className: 'input' })}</div>`;
  }
}
