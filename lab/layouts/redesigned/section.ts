import { sectionKeys, type FieldSpec, type SectionItem } from '../../forms/spec';
import { html, trusted, type Html } from '../../html';
import { checkboxInput, errorFor, errorSummary, fieldError, fieldsOf, inputId, notice, radioInput, selectInput, textInput } from '../controls';
import type { SectionView } from '../view';

/**
 * A form section in the redesigned layout: a label/field grid, other wording, a grey "Reset form"
 * button beside "Save draft", and the realistic flaws of such sites: a label-like cell not tied to
 * its input, inputs named only by a column header, "Next" as a clickable div, an icon-only button.
 */

const BACK_ICON = trusted('<svg aria-hidden="true" focusable="false" width="16" height="16" viewBox="0 0 16 16"><path d="M10 3 5 8l5 5" fill="none" stroke="#123b6d" stroke-width="2"/></svg>');

export function redesignedSection(view: SectionView): Html {
  const { sections, index } = view;
  const section = sections[index]!;
  const known = new Set(sectionKeys(section));
  const errors = view.errors.filter((e) => known.has(e.field));
  const last = index === sections.length - 1;
  return html`<p class="crumb">Step ${index + 1} of ${sections.length}: ${section.title}</p>
<h1>${section.title}</h1>
${errorSummary(errors)}${notice(view.notice)}
<form method="post" action="/apply/${section.slug}" novalidate>
<div class="card"><table class="grid"><tbody>
${section.items.map((item) => row(item, view, errors))}
</tbody></table></div>
<div class="toolbar">
  <button class="btn btn-light" type="submit" name="_action" value="save">Save draft</button>
  <button class="btn btn-grey" type="submit" name="_action" value="reset">Reset form</button>
  <span class="spacer"></span>
  <button class="icon-btn" type="submit" name="_action" value="back" title="Previous section">${BACK_ICON}</button>
  <div class="btn btn-primary" role="button" tabindex="0" data-action="next" onclick="labAction(this)" onkeydown="if(event.key==='Enter'||event.key===' '){event.preventDefault();labAction(this)}">${last ? 'Next: review' : 'Next'}</div>
</div>
</form>`;
}

function row(item: SectionItem, view: SectionView, errors: SectionView['errors']): Html {
  if (typeof item === 'string') {
    const field = view.portal.fields.find((f) => f.key === item);
    return field ? fieldRow(field, view, errors) : html``;
  }
  if ('group' in item) {
    return html`<tr><td colspan="2"><fieldset class="inline"><legend>${item.group}</legend><div class="opts">
${fieldsOf(view.portal, item.keys).map((f) => html`<label>${checkboxInput(f, view.values, errorFor(errors, f.key))} ${f.label2 ?? f.label}</label>`)}
</div></fieldset></td></tr>`;
  }
  // Inputs named only by the column headers above them (no label elements).
  const fields = fieldsOf(view.portal, item.columns);
  return html`<tr><td colspan="2"><table class="cols"><thead><tr>${fields.map((f) => html`<th>${f.label2 ?? f.label}</th>`)}</tr></thead>
<tbody><tr>${fields.map((f) => {
    const error = errorFor(errors, f.key);
    return html`<td>${fieldError(f.key, error)}${textInput(f, view.values, error, { withHint: false, maxLengthAttr: false, className: 'in' })}</td>`;
  })}</tr></tbody></table></td></tr>`;
}

function fieldRow(field: FieldSpec, view: SectionView, errors: SectionView['errors']): Html {
  const error = errorFor(errors, field.key);
  const label = field.label2 ?? field.label;
  switch (field.kind) {
    case 'radio':
      return html`<tr><td colspan="2"><fieldset class="inline"${error ? html` aria-describedby="${inputId(field.key)}-error"` : ''}><legend>${label}</legend>${fieldError(field.key, error)}<div class="opts">
${(field.options ?? []).map((o, i) => html`<label>${radioInput(field, o, i, view.values, error)} ${o}</label>`)}
</div></fieldset></td></tr>`;
    case 'select':
      return html`<tr><th scope="row"><label for="${inputId(field.key)}">${label}</label></th><td>${fieldError(field.key, error)}${selectInput(field, view.values, error, '-- choose --', false, 'in')}</td></tr>`;
    case 'checkbox':
      return html`<tr><td></td><td><label>${checkboxInput(field, view.values, error)} ${label}</label></td></tr>`;
    case 'declaration':
      return html`<tr><td></td><td class="decl">${fieldError(field.key, error)}<label>${checkboxInput(field, view.values, error)} ${label}</label></td></tr>`;
    default: {
      const input = textInput(field, view.values, error, { withHint: false, maxLengthAttr: false, className: 'in' });
      if (field.unlinkedLabel2) return html`<tr><td class="lbl">${label}</td><td>${fieldError(field.key, error)}${input}</td></tr>`;
      return html`<tr><th scope="row"><label for="${inputId(field.key)}">${label}</label></th><td>${fieldError(field.key, error)}${input}</td></tr>`;
    }
  }
}
