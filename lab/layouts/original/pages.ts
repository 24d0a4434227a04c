import { sectionKeys } from '../../forms/spec';
import { html, type Html } from '../../html';
import type { ApplicationSummary } from '../../submissions';
import { displayValue, errorSummary, fieldsOf, notice } from '../controls';
import type { DashboardView, ReviewView } from '../view';

/** Dashboard, "Check your answers", confirmation and applications list in the original layout. */

export function originalDashboard(view: DashboardView): Html {
  const w = view.portal.wording.original;
  return html`<h1>${view.portal.service}</h1>
${notice(view.notice)}
<p>${w.dashboardIntro}</p>
${
  view.draft
    ? html`<div class="notice"><p>You have a saved draft (Draft ID ${view.draft.draftId}, saved ${view.draft.savedAt.slice(0, 16).replace('T', ' ')} UTC).</p>
<p><a class="button" href="/apply/continue">Continue your saved draft</a></p></div>`
    : ''
}
<ul class="links">
  <li><a href="/apply/start">${w.startLink}</a></li>
  <li><a href="/applications">${w.applicationsLink}</a> (${view.applications} submitted)</li>
</ul>`;
}

export function originalReview(view: ReviewView): Html {
  const hrefOf = (section: string | undefined) => `/apply/${section ?? view.sections[0]!.slug}`;
  return html`<a class="back" href="/apply/${view.sections[view.sections.length - 1]!.slug}">Back</a>
<h1>Check your answers before submitting your application</h1>
${errorSummary(view.errors, (e) => hrefOf(e.section))}${notice(view.notice)}
${view.sections.map(
  (section) => html`<h2>${section.title}</h2>
<dl class="summary">${fieldsOf(view.portal, sectionKeys(section)).map(
    (f) => html`<div><dt>${f.kind === 'declaration' ? 'Declaration' : f.label}</dt><dd>${displayValue(f, view.values)}</dd>
<dd class="change"><a href="/apply/${section.slug}#f-${f.key}">Change<span class="vh"> ${f.label}</span></a></dd></div>`,
  )}</dl>`,
)}
<h2>Now send your application</h2>
<p>By submitting this application you confirm that, to the best of your knowledge, the details you are providing are correct.</p>
<form method="post" action="/apply/submit">
  <button class="button" type="submit">Submit application</button>
</form>`;
}

export function originalConfirmation(applicationNumber: string, reference: string): Html {
  return html`<div class="panel"><h1>Application submitted</h1>
<h2>Your application number is ${applicationNumber}</h2></div>
<p>Reference: ${reference}</p>
<p>We have sent you a confirmation message. Keep the application number: you need it to track the application.</p>
<p><a href="/applications">View your applications</a></p>`;
}

export function originalApplications(list: ApplicationSummary[], draft: { draftId: string; savedAt: string } | null): Html {
  return html`<h1>Your applications</h1>
${
  list.length === 0
    ? html`<p>You have not submitted any applications.</p>`
    : html`<table class="list"><caption class="vh">Your applications</caption>
<thead><tr><th scope="col">Application number</th><th scope="col">Reference</th><th scope="col">Submitted</th><th scope="col">Status</th></tr></thead>
<tbody>${list.map(
        (a) => html`<tr><td><a href="/confirmation/${a.applicationNumber}">${a.applicationNumber}</a></td><td>${a.reference}</td><td>${a.submittedAt.slice(0, 10)}</td><td>${a.status}</td></tr>`,
      )}</tbody></table>`
}
${draft ? html`<h2>Saved draft</h2><p>Draft ID ${draft.draftId}. <a href="/apply/continue">Continue your saved draft</a></p>` : ''}
<p><a href="/">Back to the dashboard</a></p>`;
}
