import { escapeHtml as e } from '../html';
import { COUNTRIES, STATES } from './data';

/**
 * The family's pages, written as each design system's own documentation writes its components'
 * markup; their behaviour comes from the packages' scripts, served under /assets (see server.ts).
 */

export type Errors = Record<string, string>;
type Values = Record<string, string>;

const v = (values: Values, key: string): string => e(values[key] ?? '');

// ---------------------------------------------------------------- USWDS

function uswdsShell(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(title)} - Benefits (USWDS lab)</title>
<link rel="stylesheet" href="/assets/uswds/css/uswds.min.css"><script src="/assets/uswds/js/uswds-init.min.js"></script></head>
<body><header class="usa-header usa-header--basic"><div class="usa-nav-container"><div class="usa-navbar"><div class="usa-logo"><em class="usa-logo__text">Benefits portal</em></div></div></div></header>
<main class="grid-container" id="main-content"><h1>${e(title)}</h1>${body}</main><script src="/assets/uswds/js/uswds.min.js"></script></body></html>`;
}

function uswdsAlert(errors: Errors): string {
  const entries = Object.entries(errors);
  if (!entries.length) return '';
  return `<div class="usa-alert usa-alert--error" role="alert"><div class="usa-alert__body"><h2 class="usa-alert__heading">There is a problem</h2><ul class="usa-list">${entries.map(([k, m]) => `<li><a href="#${k}">${e(m)}</a></li>`).join('')}</ul></div></div>`;
}

function uswdsError(errors: Errors, key: string): { cls: string; attrs: string; text: string } {
  const m = errors[key];
  return m ? { cls: ' usa-form-group--error', attrs: ` aria-invalid="true" aria-describedby="${key}-error"`, text: `<span class="usa-error-message" id="${key}-error">${e(m)}</span>` } : { cls: '', attrs: '', text: '' };
}

export function uswdsHome(): string {
  return uswdsShell('Apply for a benefits card', `<p>Use this form to apply for a benefits card.</p><a class="usa-button" href="/apply">Start now</a>`);
}

/** The application: a date picker, a combo box, an input mask, a file input, tiles and a checkbox whose label covers its input. */
export function uswdsForm(values: Values, errors: Errors = {}): string {
  const name = uswdsError(errors, 'full_name');
  const dob = uswdsError(errors, 'date_of_birth');
  const state = uswdsError(errors, 'state');
  const phone = uswdsError(errors, 'phone');
  const file = uswdsError(errors, 'proof_of_identity');
  const contact = uswdsError(errors, 'contact_method');
  const decl = uswdsError(errors, 'declaration');
  const option = (code: string, label: string) => `<option value="${code}"${values['state'] === code ? ' selected' : ''}>${e(label)}</option>`;
  const radio = (id: string, value: string, label: string) =>
    `<div class="usa-radio"><input class="usa-radio__input usa-radio__input--tile" id="${id}" type="radio" name="contact_method" value="${value}"${values['contact_method'] === value ? ' checked' : ''}><label class="usa-radio__label" for="${id}">${e(label)}</label></div>`;
  return uswdsShell(
    'Your details',
    `${uswdsAlert(errors)}<form class="usa-form usa-form--large" method="post" action="/apply" enctype="multipart/form-data">
<div class="usa-form-group${name.cls}"><label class="usa-label" for="full_name">Full name</label>${name.text}<input class="usa-input" id="full_name" name="full_name" value="${v(values, 'full_name')}"${name.attrs}></div>
<div class="usa-form-group${dob.cls}"><label class="usa-label" id="date_of_birth-label" for="date_of_birth">Date of birth</label><div class="usa-hint" id="date_of_birth-hint">mm/dd/yyyy</div>${dob.text}
<div class="usa-date-picker"><input class="usa-input" id="date_of_birth" name="date_of_birth" aria-labelledby="date_of_birth-label" aria-describedby="date_of_birth-hint" value="${v(values, 'date_of_birth')}"${dob.attrs}></div></div>
<div class="usa-form-group${state.cls}"><label class="usa-label" for="state">State</label>${state.text}<div class="usa-combo-box"><select class="usa-select" name="state" id="state"${state.attrs}><option value>Select</option>${Object.entries(STATES).map(([c, l]) => option(c, l)).join('')}</select></div></div>
<div class="usa-form-group${phone.cls}"><label class="usa-label" for="phone">Phone number</label><div class="usa-hint" id="phone-hint">10 digits, for example 555-123-4567</div>${phone.text}<input class="usa-input usa-masked" id="phone" name="phone" type="tel" placeholder="___-___-____" pattern="\\d{3}-\\d{3}-\\d{4}" aria-describedby="phone-hint" value="${v(values, 'phone')}"${phone.attrs}></div>
<div class="usa-form-group${file.cls}"><label class="usa-label" for="proof_of_identity">Proof of identity</label><span class="usa-hint" id="proof-hint">A PDF or a photo</span>${file.text}<input id="proof_of_identity" class="usa-file-input" type="file" name="proof_of_identity" aria-describedby="proof-hint" accept=".pdf,.jpg,.png"></div>
<fieldset class="usa-fieldset${contact.cls}"><legend class="usa-legend">Contact method</legend>${contact.text}${radio('contact-email', 'email', 'Email')}${radio('contact-phone', 'phone', 'Phone')}${radio('contact-mail', 'mail', 'Mail')}</fieldset>
<div class="usa-form-group${decl.cls}">${decl.text}<div class="usa-checkbox"><input class="usa-checkbox__input" id="declaration" type="checkbox" name="declaration" value="yes"${values['declaration'] === 'yes' ? ' checked' : ''}><label class="usa-checkbox__label" for="declaration">I certify that the information I gave is true</label></div></div>
<button class="usa-button" type="submit">Continue</button></form>`,
  );
}

export function uswdsReview(values: Values, fileName: string): string {
  const rows: [string, string][] = [['Full name', values['full_name'] ?? ''], ['Date of birth', values['date_of_birth'] ?? ''], ['State', STATES[values['state'] ?? ''] ?? ''], ['Phone number', values['phone'] ?? ''], ['Proof of identity', fileName], ['Contact method', values['contact_method'] ?? '']];
  return uswdsShell(
    'Review your application',
    `<table class="usa-table"><tbody>${rows.map(([k, val]) => `<tr><th scope="row">${e(k)}</th><td>${e(val)}</td></tr>`).join('')}</tbody></table>
<form method="post" action="/submit"><button class="usa-button" type="submit">Submit application</button></form>`,
  );
}

export function uswdsDone(number: string): string {
  return uswdsShell('Application received', `<div class="usa-alert usa-alert--success"><div class="usa-alert__body"><p class="usa-alert__text">Your application number is <strong>${e(number)}</strong>.</p></div></div>`);
}

// ---------------------------------------------------------------- GOV.UK and MoJ share GOV.UK's shell

/**
 * The packages' single-file ES module bundles: the per-component modules of `all.mjs` include
 * `file-upload.mjs`, an address the commit gate holds for its word "file" on every page.
 */
const IMPORTS = JSON.stringify({ imports: { 'govuk-frontend': '/assets/govuk/all.bundle.mjs' } });

function govukShell(service: string, title: string, body: string, extraHead = '', extraScript = ''): string {
  return `<!doctype html><html lang="en" class="govuk-template"><head><meta charset="utf-8"><title>${e(title)} - ${e(service)}</title>
<link rel="stylesheet" href="/assets/govuk/govuk-frontend.min.css">${extraHead}<script type="importmap">${IMPORTS}</script></head>
<body class="govuk-template__body"><script>document.body.className += ' js-enabled govuk-frontend-supported';</script>
<header class="govuk-header"><div class="govuk-header__container govuk-width-container"><span class="govuk-header__service-name">${e(service)}</span></div></header>
<div class="govuk-width-container"><main class="govuk-main-wrapper" id="main-content"><div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds">
<h1 class="govuk-heading-l">${e(title)}</h1>${body}</div></div></main></div>
<script type="module">import { initAll } from 'govuk-frontend'; initAll();${extraScript}</script></body></html>`;
}

/** GOV.UK's error summary: each message links to its field. */
function govukSummary(errors: Errors, ids: Record<string, string> = {}): string {
  const entries = Object.entries(errors);
  if (!entries.length) return '';
  return `<div class="govuk-error-summary" data-module="govuk-error-summary"><div role="alert"><h2 class="govuk-error-summary__title">There is a problem</h2><div class="govuk-error-summary__body"><ul class="govuk-list govuk-error-summary__list">${entries.map(([k, m]) => `<li><a href="#${ids[k] ?? k}">${e(m)}</a></li>`).join('')}</ul></div></div></div>`;
}

function govukError(errors: Errors, key: string): { cls: string; attrs: string; text: string; inputCls: string } {
  const m = errors[key];
  return m
    ? { cls: ' govuk-form-group--error', attrs: ` aria-describedby="${key}-error"`, inputCls: ' govuk-input--error', text: `<p id="${key}-error" class="govuk-error-message"><span class="govuk-visually-hidden">Error:</span> ${e(m)}</p>` }
    : { cls: '', attrs: '', inputCls: '', text: '' };
}

const SERVICE_GOVUK = 'Apply for a visitor permit';

export function govukHome(): string {
  return govukShell(SERVICE_GOVUK, 'Apply for a visitor permit', `<p class="govuk-body">Use this service to apply for a visitor permit.</p><a href="/apply" role="button" draggable="false" class="govuk-button govuk-button--start" data-module="govuk-button">Start now</a>`);
}

/**
 * The details page: a nationality autocomplete (accessible-autocomplete over a select), radios with
 * a conditional reveal, a postcode look-up that lists the addresses there, an error summary.
 */
export function govukForm(values: Values, errors: Errors = {}, found?: string[][]): string {
  const name = govukError(errors, 'full_name');
  const nat = govukError(errors, 'nationality');
  const contact = govukError(errors, 'contact');
  const email = govukError(errors, 'email');
  const phone = govukError(errors, 'phone');
  const pc = govukError(errors, 'postcode');
  const addr = govukError(errors, 'address');
  const radio = (id: string, value: string, label: string, reveal?: string) =>
    `<div class="govuk-radios__item"><input class="govuk-radios__input" id="${id}" name="contact" type="radio" value="${value}"${values['contact'] === value ? ' checked' : ''}${reveal ? ` data-aria-controls="${reveal}"` : ''}><label class="govuk-label govuk-radios__label" for="${id}">${e(label)}</label></div>`;
  const addresses = found ?? [];
  const addressPicker = addresses.length
    ? `<div class="govuk-form-group${addr.cls}"><label class="govuk-label" for="address">Select an address</label>${addr.text}<select class="govuk-select" id="address" name="address"${addr.attrs}><option value="">${addresses.length} addresses found</option>${addresses.map((lines) => { const text = lines.join(', '); return `<option value="${e(text)}"${values['address'] === text ? ' selected' : ''}>${e(text)}</option>`; }).join('')}</select></div>`
    : '';
  return govukShell(
    SERVICE_GOVUK,
    'Your details',
    `${govukSummary(errors, { nationality: 'nationality', contact: 'contact-email' })}<form method="post" action="/apply" novalidate>
<div class="govuk-form-group${name.cls}"><label class="govuk-label" for="full_name">Full name</label>${name.text}<input class="govuk-input${name.inputCls}" id="full_name" name="full_name" type="text" autocomplete="name" value="${v(values, 'full_name')}"${name.attrs}></div>
<div class="govuk-form-group${nat.cls}"><label class="govuk-label" for="nationality">Nationality</label><div class="govuk-hint" id="nationality-hint">Start typing, then choose from the list</div>${nat.text}
<select class="govuk-select" id="nationality" name="nationality"><option value=""></option>${COUNTRIES.map((c) => `<option value="${e(c)}"${values['nationality'] === c ? ' selected' : ''}>${e(c)}</option>`).join('')}</select></div>
<div class="govuk-form-group${contact.cls}"><fieldset class="govuk-fieldset"><legend class="govuk-fieldset__legend govuk-fieldset__legend--m">How should we contact you?</legend>${contact.text}
<div class="govuk-radios" data-module="govuk-radios">${radio('contact-email', 'email', 'Email', 'conditional-email')}
<div class="govuk-radios__conditional govuk-radios__conditional--hidden" id="conditional-email"><div class="govuk-form-group${email.cls}"><label class="govuk-label" for="email">Email address</label>${email.text}<input class="govuk-input${email.inputCls}" id="email" name="email" type="email" spellcheck="false" value="${v(values, 'email')}"${email.attrs}></div></div>
${radio('contact-phone', 'phone', 'Phone', 'conditional-phone')}
<div class="govuk-radios__conditional govuk-radios__conditional--hidden" id="conditional-phone"><div class="govuk-form-group${phone.cls}"><label class="govuk-label" for="phone">Phone number</label>${phone.text}<input class="govuk-input${phone.inputCls}" id="phone" name="phone" type="tel" value="${v(values, 'phone')}"${phone.attrs}></div></div>
</div></fieldset></div>
<div class="govuk-form-group${pc.cls}"><label class="govuk-label" for="postcode">Postcode</label>${pc.text}<input class="govuk-input govuk-input--width-10${pc.inputCls}" id="postcode" name="postcode" type="text" autocomplete="postal-code" value="${v(values, 'postcode')}"${pc.attrs}></div>
<button type="submit" name="action" value="find" class="govuk-button govuk-button--secondary" data-module="govuk-button">Find address</button>
${addressPicker}
<div class="govuk-button-group"><button type="submit" name="action" value="continue" class="govuk-button" data-module="govuk-button">Continue</button></div></form>`,
    '<link rel="stylesheet" href="/assets/autocomplete/accessible-autocomplete.min.css"><script src="/assets/autocomplete/accessible-autocomplete.min.js"></script>',
    `accessibleAutocomplete.enhanceSelectElement({ selectElement: document.querySelector('#nationality'), defaultValue: '', showAllValues: false });`,
  );
}

export function govukReview(values: Values): string {
  const rows: [string, string][] = [['Full name', values['full_name'] ?? ''], ['Nationality', values['nationality'] ?? ''], ['Contact', values['contact'] === 'email' ? values['email'] ?? '' : values['phone'] ?? ''], ['Address', values['address'] ?? '']];
  return govukShell(
    SERVICE_GOVUK,
    'Check your answers before sending your application',
    `<dl class="govuk-summary-list">${rows.map(([k, val]) => `<div class="govuk-summary-list__row"><dt class="govuk-summary-list__key">${e(k)}</dt><dd class="govuk-summary-list__value">${e(val)}</dd><dd class="govuk-summary-list__actions"><a class="govuk-link" href="/apply">Change<span class="govuk-visually-hidden"> ${e(k.toLowerCase())}</span></a></dd></div>`).join('')}</dl>
<h2 class="govuk-heading-m">Now send your application</h2><p class="govuk-body">By sending this application you confirm that the details are correct.</p>
<form method="post" action="/send" novalidate><button type="submit" class="govuk-button" data-module="govuk-button">Accept and send</button></form>`,
  );
}

export function govukDone(service: string, number: string): string {
  return govukShell(service, 'Application complete', `<div class="govuk-panel govuk-panel--confirmation"><div class="govuk-panel__body">Your reference number<br><strong>${e(number)}</strong></div></div>`);
}

// ---------------------------------------------------------------- MoJ Frontend

const SERVICE_MOJ = 'Register a claim';

export function mojHome(): string {
  return govukShell(SERVICE_MOJ, 'Register a claim', `<p class="govuk-body">Tell us who is making the claim.</p><a href="/claim" role="button" draggable="false" class="govuk-button govuk-button--start" data-module="govuk-button">Start now</a>`, '<link rel="stylesheet" href="/assets/moj/moj-frontend.min.css">');
}

/** One person's block of the MoJ add-another component, with the `%index%` names it renumbers. */
function mojPerson(index: number, values: Values): string {
  const val = (member: string) => e(values[`people[${index}][${member}]`] ?? '');
  return `<div class="moj-add-another__item"><fieldset class="govuk-fieldset moj-add-another__fieldset"><legend class="govuk-fieldset__legend moj-add-another__item-title govuk-fieldset__legend--m">Person ${index + 1}</legend><div class="moj-add-another__item-container">
<div class="govuk-form-group"><label class="govuk-label" for="people-${index}-full_name">Full name</label><input class="govuk-input" id="people-${index}-full_name" name="people[${index}][full_name]" type="text" data-name="people[%index%][full_name]" data-id="people-%index%-full_name" value="${val('full_name')}"></div>
<div class="govuk-form-group"><label class="govuk-label" for="people-${index}-role">Role in the claim</label><input class="govuk-input" id="people-${index}-role" name="people[${index}][role]" type="text" data-name="people[%index%][role]" data-id="people-%index%-role" value="${val('role')}"></div>
<div class="moj-add-another__remove-button-container"></div></div></fieldset></div>`;
}

/** The claimants page: the MoJ add-another component (people added in the page by its script) and its date picker. */
export function mojForm(values: Values, errors: Errors = {}): string {
  const count = Math.max(1, ...Object.keys(values).map((k) => Number(/^people\[(\d+)\]/.exec(k)?.[1] ?? -1) + 1));
  const claim = govukError(errors, 'claim_date');
  const ref = govukError(errors, 'case_reference');
  return govukShell(
    SERVICE_MOJ,
    'Who is making the claim',
    `${govukSummary(errors)}<form method="post" action="/claim" novalidate>
<div class="govuk-form-group${ref.cls}"><label class="govuk-label" for="case_reference">Case reference</label>${ref.text}<input class="govuk-input govuk-input--width-10${ref.inputCls}" id="case_reference" name="case_reference" type="text" value="${v(values, 'case_reference')}"${ref.attrs}></div>
<div class="moj-datepicker" data-module="moj-date-picker"><div class="govuk-form-group${claim.cls}"><label class="govuk-label" for="claim_date">Date of the incident</label><div id="claim_date-hint" class="govuk-hint">For example, 17/5/2024.</div>${claim.text}
<input class="govuk-input moj-js-datepicker-input${claim.inputCls}" id="claim_date" name="claim_date" type="text" aria-describedby="claim_date-hint" autocomplete="off" value="${v(values, 'claim_date')}"${claim.attrs}></div></div>
<div data-module="moj-add-another" data-item-label="person"><h2 class="govuk-heading-m">People</h2><div class="moj-add-another__items">${Array.from({ length: count }, (_, i) => mojPerson(i, values)).join('')}</div>
<div class="moj-button-action"><button type="button" class="govuk-button govuk-button--secondary moj-add-another__add-button govuk-!-margin-bottom-4" data-module="govuk-button">Add another person</button></div></div>
<div class="govuk-button-group"><button type="submit" class="govuk-button" data-module="govuk-button">Continue</button></div></form>`,
    '<link rel="stylesheet" href="/assets/moj/moj-frontend.min.css">',
    ` import { createAll } from 'govuk-frontend'; import { AddAnother } from '/assets/moj/components/add-another/add-another.bundle.mjs'; import { DatePicker } from '/assets/moj/components/date-picker/date-picker.bundle.mjs'; createAll(AddAnother); createAll(DatePicker);`,
  );
}

export function mojReview(values: Values, people: { full_name: string; role: string }[]): string {
  return govukShell(
    SERVICE_MOJ,
    'Check your answers',
    `<dl class="govuk-summary-list"><div class="govuk-summary-list__row"><dt class="govuk-summary-list__key">Case reference</dt><dd class="govuk-summary-list__value">${v(values, 'case_reference')}</dd></div>
<div class="govuk-summary-list__row"><dt class="govuk-summary-list__key">Date of the incident</dt><dd class="govuk-summary-list__value">${v(values, 'claim_date')}</dd></div>
${people.map((p, i) => `<div class="govuk-summary-list__row"><dt class="govuk-summary-list__key">Person ${i + 1}</dt><dd class="govuk-summary-list__value">${e(p.full_name)}, ${e(p.role)}</dd></div>`).join('')}</dl>
<form method="post" action="/send" novalidate><button type="submit" class="govuk-button" data-module="govuk-button">Send application</button></form>`,
    '<link rel="stylesheet" href="/assets/moj/moj-frontend.min.css">',
  );
}

export const SERVICES = { govuk: SERVICE_GOVUK, moj: SERVICE_MOJ };
