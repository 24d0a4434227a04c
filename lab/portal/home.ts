import { earlierApplication } from '../history';
import { html } from '../html';
import { clientOf, sendPage, takeFlash, type PortalContext } from './context';

/** Dashboard, the applications list and the confirmation page of a submitted application. */

function draftSummary(ctx: PortalContext) {
  const draft = clientOf(ctx).drafts.get(ctx.portal.id);
  return draft ? { draftId: draft.draftId, savedAt: draft.savedAt } : null;
}

export function showDashboard(ctx: PortalContext): void {
  const flash = takeFlash(ctx);
  const client = clientOf(ctx);
  const main = ctx.layout.dashboard({
    portal: ctx.portal,
    clientId: client.clientId,
    draft: draftSummary(ctx),
    notice: flash.notice ?? null,
    applications: ctx.state.submissions.applications(client.clientId, ctx.portal.id).length,
  });
  sendPage(ctx, { title: 'Dashboard', main });
}

export function showApplications(ctx: PortalContext): void {
  const list = ctx.state.submissions.applications(clientOf(ctx).clientId, ctx.portal.id);
  sendPage(ctx, { title: 'Your applications', main: ctx.layout.applications(ctx.portal, list, draftSummary(ctx)) });
}

export function showConfirmation(ctx: PortalContext, applicationNumber: string): void {
  const submission = ctx.state.submissions.find(applicationNumber);
  const earlier = submission ? undefined : earlierApplication(applicationNumber);
  if (earlier && earlier.clientId === clientOf(ctx).clientId && earlier.portal === ctx.portal.id) {
    // An application filed before the lab started: its acknowledgement, as the portal keeps it.
    const main = ctx.layout.confirmation(ctx.portal, earlier.applicationNumber, earlier.reference);
    return sendPage(ctx, { title: `Application submitted: ${earlier.applicationNumber}`, main });
  }
  if (!submission || submission.clientId !== clientOf(ctx).clientId || submission.portal !== ctx.portal.id) return showNotFound(ctx);
  const main = ctx.layout.confirmation(ctx.portal, submission.applicationNumber, ctx.portal.reference(submission.fields));
  sendPage(ctx, { title: `Application submitted: ${submission.applicationNumber}`, main });
}

export function showNotFound(ctx: PortalContext): void {
  sendPage(ctx, { title: 'Page not found', status: 404, main: html`<h1>Page not found</h1><p>If you typed the web address, check it is correct.</p><p><a href="/">Go to the dashboard</a></p>` });
}
