import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientState } from '../clients';
import type { PortalId } from '../hosts';
import { formOf, localPath, redirect, sendText, setCookie, type LabRequest } from '../http';
import { CONSENT_COOKIE } from '../overlays';
import { PORTALS } from '../portals/registry';
import { SESSION_COOKIE } from '../session';
import type { LabState } from '../state';
import { continueDraft, postSection, showSection, startApplication } from './apply';
import { makeContext, type PortalContext } from './context';
import { showApplications, showConfirmation, showDashboard, showNotFound } from './home';
import { postHumanCheck, showHumanCheck } from './human-check';
import { postSignIn, postSignOut, showSignIn } from './sign-in';
import { postSubmit, showReview } from './submit';
import { postResend, postVerify, showVerify } from './verify';

/** Serves one portal host. Returns the client the session belongs to (for the request log). */
export async function handlePortal(state: LabState, portalId: PortalId, req: LabRequest, res: ServerResponse): Promise<string | null> {
  if (req.path === '/favicon.ico') {
    sendText(res, 404, 'Not found');
    return null;
  }
  const portal = PORTALS[portalId];
  let session = state.sessions.find(req.cookies[SESSION_COOKIE], portalId);
  if (!session) {
    session = state.sessions.create(portalId);
    setCookie(res, SESSION_COOKIE, session.id);
  }
  const client = session.clientId ? state.clients.get(session.clientId) : null;
  const variant = client?.variant ?? state.clients.lastConfigured;
  if (variant.slowMs > 0) await sleep(variant.slowMs);

  if (session.stage === 'signed-in' && client && sessionRunsOut(client)) {
    state.sessions.expireClient(client.clientId);
    if (req.method === 'GET') session.next = req.path;
    redirect(res, '/sign-in');
    return client.clientId;
  }
  route(makeContext(state, portal, req, res, session, variant));
  return session.clientId;
}

/** Counts an authenticated request; true when this one is past the variant's limit. */
function sessionRunsOut(client: ClientState): boolean {
  const limit = client.variant.expireSessionAfterRequests;
  if (limit === null || !client.expiryArmed) return false;
  client.authedRequests++;
  if (client.authedRequests <= limit) return false;
  client.authedRequests = 0;
  client.expiryArmed = client.variant.expireEvery;
  return true;
}

function route(ctx: PortalContext): void {
  const { req, res, session } = ctx;
  const key = `${req.method} ${req.path}`;
  // Pages anyone may see.
  switch (key) {
    case 'GET /sign-in':
      return showSignIn(ctx);
    case 'POST /sign-in':
      return postSignIn(ctx);
    case 'POST /sign-out':
      return postSignOut(ctx);
    case 'POST /cookies':
      return postCookies(ctx);
    case 'GET /verify':
      return showVerify(ctx);
    case 'POST /verify':
      return postVerify(ctx);
    case 'POST /verify/resend':
      return postResend(ctx);
  }
  if (session.stage !== 'signed-in') {
    if (session.stage === 'awaiting-otp') return redirect(res, '/verify');
    if (req.method === 'GET') session.next = req.path;
    return redirect(res, '/sign-in');
  }
  switch (key) {
    case 'GET /':
      return showDashboard(ctx);
    case 'GET /applications':
      return showApplications(ctx);
    case 'GET /apply/start':
      return startApplication(ctx);
    case 'GET /apply/continue':
      return continueDraft(ctx);
    case 'GET /apply/review':
      return showReview(ctx);
    case 'POST /apply/submit':
      return postSubmit(ctx);
    case 'GET /human-check':
      return showHumanCheck(ctx);
    case 'POST /human-check':
      return postHumanCheck(ctx);
  }
  const section = /^\/apply\/([a-z0-9-]+)$/.exec(req.path);
  if (section && req.method === 'GET') return showSection(ctx, section[1]!);
  if (section && req.method === 'POST') return postSection(ctx, section[1]!);
  const confirmation = /^\/confirmation\/([A-Z]{3}-\d{4}-\d{6})$/.exec(req.path);
  if (confirmation && req.method === 'GET') return showConfirmation(ctx, confirmation[1]!);
  showNotFound(ctx);
}

/** The cookie banner's buttons: remember the choice in a cookie and go back to the page. */
function postCookies(ctx: PortalContext): void {
  const form = formOf(ctx.req);
  setCookie(ctx.res, CONSENT_COOKIE, form.get('consent') === 'accept' ? 'all' : 'essential');
  redirect(ctx.res, localPath(form.get('return'), '/'));
}
