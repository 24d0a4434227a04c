import type { ServerResponse } from 'node:http';
import { attackContent } from '../attacks/embed';
import type { ClientState } from '../clients';
import type { PortalSpec, SectionSpec } from '../forms/spec';
import { html, type Html } from '../html';
import { sendHtml, type LabRequest } from '../http';
import { LAYOUTS } from '../layouts/registry';
import type { Layout } from '../layouts/view';
import { CONSENT_COOKIE, cookieBanner } from '../overlays';
import type { Flash, Session } from '../session';
import type { LabState } from '../state';
import type { LabVariant } from '../variants';

/** One request to a portal: who is asking, in which variant, and how to answer with a page. */
export interface PortalContext {
  readonly state: LabState;
  readonly portal: PortalSpec;
  readonly req: LabRequest;
  readonly res: ServerResponse;
  readonly session: Session;
  readonly variant: LabVariant;
  readonly layout: Layout;
}

export function makeContext(state: LabState, portal: PortalSpec, req: LabRequest, res: ServerResponse, session: Session, variant: LabVariant): PortalContext {
  return { state, portal, req, res, session, variant, layout: LAYOUTS[variant.layout] };
}

/** The signed-in client (routes that need one are only reached when signed in). */
export function clientOf(ctx: PortalContext): ClientState {
  if (!ctx.session.clientId) throw new Error('no client in this session');
  return ctx.state.clients.get(ctx.session.clientId);
}

/** Takes the flash message for this page (post/redirect/get). */
export function takeFlash(ctx: PortalContext): Flash {
  const flash = ctx.session.flash ?? {};
  ctx.session.flash = null;
  return flash;
}

export interface PageOptions {
  title: string;
  main: Html;
  status?: number;
  extraOverlay?: Html;
  sectionNav?: { sections: readonly SectionSpec[]; current: string | null; done: ReadonlySet<string> };
  /** The look of this one page when it is not the variant's (the `changedSection`). */
  layout?: Layout;
}

export function sendPage(ctx: PortalContext, options: PageOptions): void {
  const banner = ctx.variant.cookieBanner && !ctx.req.cookies[CONSENT_COOKIE] ? cookieBanner(ctx.req.path) : html``;
  const signedInAs = ctx.session.stage === 'signed-in' ? ctx.session.clientId : null;
  const document = (options.layout ?? ctx.layout).document({
    portal: ctx.portal,
    title: options.title,
    main: html`${attackContent(ctx.state, { portal: ctx.portal.id, path: ctx.req.path, attack: ctx.variant.attack, clientId: signedInAs })}${options.main}`,
    signedInAs,
    overlays: html`${options.extraOverlay ?? ''}${banner}`,
    ...(options.sectionNav ? { sectionNav: options.sectionNav } : {}),
  });
  sendHtml(ctx.res, options.status ?? 200, document);
}
