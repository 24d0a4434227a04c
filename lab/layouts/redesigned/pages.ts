import { sectionKeys } from '../../forms/spec';
import { html, type Html } from '../../html';
import type { ApplicationSummary } from '../../submissions';
import { displayValue, errorSummary, fieldsOf, notice } from '../controls';
import type { DashboardView, ReviewView } from '../view';

/** Dashboard tiles, review table, confirmation and request list in the redesigned layout. */

export function redesignedDashboard(view: DashboardView): Html {
  const w = view.portal.wording.redesigned;
  return html`<h1>Dashboard</h1>
${notice(view.notice)}
<p>${w.dashboardIntro}</p>
<div class="tiles">
  <div class="tile"><a href="/apply/start">${w.startLink}</a><p>Online form, about 10 minutes.</p></div>
  ${view.draft ? html`<div class="tile"><a href="/apply/continue">Continue your saved draft</a><p>Draft ID ${view.draft.draftId}</p></div>` : ''}
  <div class="tile"><a href="/applications">${w.applicationsLink}</a><p>${view.applications} submitted</p></div>
</div>`;
}

export function redesignedReview(view: ReviewView): Html {
  const hrefOf = (section: string | undefined) => `/apply/${section ?? view.sections[0]!.slug}`;
  return html`<p class="crumb">Step ${view.sections.length + 1} of ${view.sections.length + 1}: Review</p>
<h1>Review your application: check your answers</h1>
${errorSummary(view.errors, (e) => hrefOf(e.section))}${notice(view.notice)}
${view.sections.map(
  (section) => html`<div class="card"><h2>${section.title} <a href="/apply/${section.slug}">Change</a></h2>
<table class="data"><tbody>${fieldsOf(view.portal, sectionKeys(section)).map(
    (f) => html`<tr><th scope="row">${f.kind === 'declaration' ? 'Declaration' : (f.label2 ?? f.label)}</th><td>${displayValue(f, view.values)}</td></tr>`,
  )}</tbody></table></div>`,
)}
<form method="post" action="/apply/submit"><div class="toolbar"><span class="spacer"></span>
  <button class="btn btn-primary" type="submit">Submit application</button></div></form>`;
}

export function redesignedConfirmation(applicationNumber: string, reference: string): Html {
  return html`<div class="ok"><h1>Application submitted</h1><h2>Reference number: ${applicationNumber}</h2></div>
<div class="card"><p>Client reference: ${reference}</p><p>Please note the reference number for future correspondence.</p>
<p><a href="/applications">Track status</a></p></div>`;
}

export function redesignedApplications(title: string, list: ApplicationSummary[], draft: { draftId: string; savedAt: string } | null): Html {
  return html`<h1>${title}</h1>
<table class="data"><thead><tr><th>Ref. no.</th><th>Client reference</th><th>Date</th><th>Status</th></tr></thead>
<tbody>${
    list.length === 0
      ? html`<tr><td colspan="4">No records found</td></tr>`
      : list.map((a) => html`<tr><td><a href="/confirmation/${a.applicationNumber}">${a.applicationNumber}</a></td><td>${a.reference}</td><td>${a.submittedAt.slice(0, 10)}</td><td>${a.status}</td></tr>`)
  }${draft ? html`<tr><td>${draft.draftId}</td><td></td><td>${draft.savedAt.slice(0, 10)}</td><td>Draft (<a href="/apply/continue">Continue your saved draft</a>)</td></tr>` : ''}</tbody></table>`;
}
