import { randomInt } from 'node:crypto';
import { applySameAs } from '../forms/same-as';
import { blankValues, sectionKeys, type FieldValues, type SectionSpec } from '../forms/spec';
import { validateSection } from '../forms/validate';
import { html } from '../html';
import { formOf, redirect } from '../http';
import { LAYOUTS } from '../layouts/registry';
import { surveyDialog } from '../overlays';
import type { WorkCopy } from '../session';
import { clientOf, sendPage, takeFlash, type PortalContext } from './context';
import { passedHumanCheck } from './human-check';
import { failedRegisterCheck } from './register-check';

/** The form sections: start, continue a saved draft, show a section, and its Next / Save draft / Back / Reset. */

export function freshWork(ctx: PortalContext): WorkCopy {
  return { draftId: null, fields: blankValues(ctx.portal), sectionsDone: new Set() };
}

function sectionsOf(ctx: PortalContext): readonly SectionSpec[] {
  return ctx.portal.sections[ctx.variant.layout];
}

function workOf(ctx: PortalContext): WorkCopy {
  ctx.session.work ??= freshWork(ctx);
  return ctx.session.work;
}

export function startApplication(ctx: PortalContext): void {
  if (!passedHumanCheck(ctx)) return;
  ctx.session.work = freshWork(ctx);
  redirect(ctx.res, `/apply/${sectionsOf(ctx)[0]!.slug}`);
}

export function continueDraft(ctx: PortalContext): void {
  if (!passedHumanCheck(ctx)) return;
  const draft = clientOf(ctx).drafts.get(ctx.portal.id);
  if (!draft) {
    ctx.session.flash = { notice: 'You have no saved draft. Start a new application.' };
    return redirect(ctx.res, '/');
  }
  ctx.session.work = { draftId: draft.draftId, fields: { ...blankValues(ctx.portal), ...draft.fields }, sectionsDone: new Set(draft.sectionsDone) };
  const pending = sectionsOf(ctx).find((s) => !draft.sectionsDone.includes(s.slug));
  redirect(ctx.res, pending ? `/apply/${pending.slug}` : '/apply/review');
}

export function showSection(ctx: PortalContext, slug: string): void {
  const sections = sectionsOf(ctx);
  const index = sections.findIndex((s) => s.slug === slug);
  if (index < 0) return redirect(ctx.res, `/apply/${sections[0]!.slug}`);
  if (!passedHumanCheck(ctx)) return;
  const work = workOf(ctx);
  const flash = takeFlash(ctx);
  const client = clientOf(ctx);
  let survey = html``;
  if (ctx.variant.surveyPopup && index === 1 && !client.surveyShown.has(ctx.portal.id)) {
    client.surveyShown.add(ctx.portal.id);
    survey = surveyDialog();
  }
  const layout = ctx.variant.changedSection === slug ? LAYOUTS.redesigned : ctx.layout;
  const main = layout.section({ portal: ctx.portal, sections, index, values: work.fields, errors: flash.errors ?? [], notice: flash.notice ?? null });
  sendPage(ctx, {
    title: `${flash.errors?.length ? 'Error: ' : ''}${sections[index]!.title}`,
    main,
    extraOverlay: survey,
    sectionNav: { sections, current: slug, done: work.sectionsDone },
    layout,
  });
}

/** The values a section's form posted: trimmed text, ticked boxes as true, unticked as false. */
function postedValues(ctx: PortalContext, section: SectionSpec): FieldValues {
  const form = formOf(ctx.req);
  const out: FieldValues = {};
  for (const key of sectionKeys(section)) {
    const field = ctx.portal.fields.find((f) => f.key === key);
    if (!field) continue;
    out[key] = field.kind === 'checkbox' || field.kind === 'declaration' ? form.has(key) : (form.get(key) ?? '').trim();
  }
  return out;
}

function newDraftId(): string {
  return `D-${randomInt(1_000_000, 10_000_000)}`;
}

export function postSection(ctx: PortalContext, slug: string): void {
  const sections = sectionsOf(ctx);
  const index = sections.findIndex((s) => s.slug === slug);
  if (index < 0) return redirect(ctx.res, `/apply/${sections[0]!.slug}`);
  if (!passedHumanCheck(ctx)) return;
  const section = sections[index]!;
  const action = formOf(ctx.req).get('_action') ?? 'next';
  const client = clientOf(ctx);
  if (action === 'reset') {
    ctx.session.work = freshWork(ctx);
    client.drafts.delete(ctx.portal.id);
    client.resets++;
    ctx.session.flash = { notice: 'The form has been reset. All your answers have been cleared.' };
    return redirect(ctx.res, `/apply/${sections[0]!.slug}`);
  }
  const work = workOf(ctx);
  work.fields = applySameAs({ ...work.fields, ...postedValues(ctx, section) }, ctx.portal.fields.map((f) => f.key));
  if (action === 'save') {
    work.draftId ??= newDraftId();
    client.drafts.set(ctx.portal.id, { draftId: work.draftId, fields: { ...work.fields }, sectionsDone: [...work.sectionsDone], savedAt: new Date(ctx.state.now()).toISOString() });
    ctx.session.flash = { notice: `Draft saved. Draft ID ${work.draftId}` };
    return redirect(ctx.res, `/apply/${slug}`);
  }
  if (action === 'back') return redirect(ctx.res, index === 0 ? '/' : `/apply/${sections[index - 1]!.slug}`);
  const invalid = validateSection(ctx.portal, section, work.fields, ctx.variant.layout);
  const lookup = invalid.length ? null : failedRegisterCheck(ctx, section, work);
  const errors = lookup ? [lookup] : invalid;
  if (errors.length) {
    work.sectionsDone.delete(slug);
    ctx.session.flash = { errors };
    return redirect(ctx.res, `/apply/${slug}`);
  }
  work.sectionsDone.add(slug);
  redirect(ctx.res, index === sections.length - 1 ? '/apply/review' : `/apply/${sections[index + 1]!.slug}`);
}
