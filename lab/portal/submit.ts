import type { ClientState } from '../clients';
import { applySameAs } from '../forms/same-as';
import { recordedFields, type FieldValues } from '../forms/spec';
import { validateApplication } from '../forms/validate';
import { redirect } from '../http';
import { clientOf, sendPage, takeFlash, type PortalContext } from './context';

/** "Check your answers" and the final submit (with a one-time code first when the variant asks). */

export function showReview(ctx: PortalContext): void {
  const work = ctx.session.work;
  if (!work) return redirect(ctx.res, '/');
  const flash = takeFlash(ctx);
  const sections = ctx.portal.sections[ctx.variant.layout];
  const main = ctx.layout.review({ portal: ctx.portal, sections, values: work.fields, errors: flash.errors ?? [], notice: flash.notice ?? null });
  sendPage(ctx, { title: 'Check your answers', main, sectionNav: { sections, current: 'review', done: work.sectionsDone } });
}

export function postSubmit(ctx: PortalContext): void {
  const work = ctx.session.work;
  if (!work) {
    ctx.session.flash = { notice: 'There is no application in progress. Start a new application or continue your saved draft.' };
    return redirect(ctx.res, '/');
  }
  const errors = validateApplication(ctx.portal, ctx.variant.layout, work.fields);
  if (errors.length) {
    ctx.session.flash = { errors };
    return redirect(ctx.res, '/apply/review');
  }
  const client = clientOf(ctx);
  if (client.variant.otp === 'submit') {
    ctx.state.otp.send(client.clientId, ctx.portal.id, 'submit');
    ctx.session.otpFor = 'submit';
    return redirect(ctx.res, '/verify');
  }
  completeSubmission(ctx, client);
}

/** Records the submission, drops the draft it came from, and shows the confirmation. */
export function completeSubmission(ctx: PortalContext, client: ClientState): void {
  const work = ctx.session.work;
  if (!work || validateApplication(ctx.portal, ctx.variant.layout, work.fields).length) return redirect(ctx.res, '/apply/review');
  const all = applySameAs(work.fields, ctx.portal.fields.map((f) => f.key));
  const fields: FieldValues = {};
  for (const f of recordedFields(ctx.portal)) fields[f.key] = all[f.key] ?? (f.kind === 'checkbox' ? false : '');
  const now = new Date(ctx.state.now());
  const submission = ctx.state.submissions.record({
    portal: ctx.portal.id,
    clientId: client.clientId,
    task: ctx.portal.task,
    draftId: work.draftId,
    fields,
    submittedAt: now.toISOString(),
    prefix: ctx.portal.numberPrefix,
    year: now.getUTCFullYear(),
    reference: ctx.portal.reference(fields),
  });
  if (work.draftId && client.drafts.get(ctx.portal.id)?.draftId === work.draftId) client.drafts.delete(ctx.portal.id);
  ctx.session.work = null;
  redirect(ctx.res, `/confirmation/${submission.applicationNumber}`);
}
