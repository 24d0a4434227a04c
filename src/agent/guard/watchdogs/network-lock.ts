import type { BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import type { PortalProfile } from '../../../shared/portal-profile';
import { isAllowedUrl } from '../../../shared/allowed-hosts';
import { heldRequestLine } from '../../../shared/clerk';
import { challengeHostsOf } from '../challenge-hosts';
import type { CommitGate } from '../commit-gate';
import { READ_METHODS } from '../request-class';
import { hostOf, safeSink, type GuardEventSink } from './guard-event';
import { REDIRECTS, safeResolve } from './redirect-lock';

interface NetworkLockOptions {
  /**
   * The pages whose redirects the redirect lock already watches (the work pages, and new tabs
   * once the pop-up watchdog locked them). A document for any other page (a new tab's first
   * page) is fetched here one hop at a time, so a redirect off the portal is stopped in this lock
   * too, before any page lock is on that tab.
   */
  isLockedPage?: (page: Page) => boolean;
  /**
   * The run's commit gate: a request on the portal's addresses that can commit something waits
   * here (the route stays paused) until the clerk decides; it reports what it did itself.
   */
  gate?: CommitGate;
}

/**
 * The network lock: every request the context makes (documents in the main frame and in every
 * frame, form posts, pop-ups, and subresources: scripts, images, styles, fetch/XHR, beacons)
 * goes only to the portal's addresses (`isAllowedUrl`, the same check as the `goto` rule), and
 * WebSocket connections likewise. Subresources are locked too: an image or a fetch to another
 * host carries data out as well as a page does. Refused documents are reported as
 * `navigation_blocked`, everything else as `request_blocked`.
 *
 * What this layer cannot see, and who covers it:
 * - redirect hops: Playwright's routing sees only the first request of a redirect chain and lets
 *   later hops through unasked; `installRedirectLock` stops those at the response.
 * - `javascript:` URLs make no request (they run script in the page, whose requests come here);
 *   `data:` documents and `about:blank` make no network request; Chromium itself refuses
 *   page-initiated top-level `data:` and `file:` navigations.
 * - routes registered later, or on a page, run before this one and could let a request through:
 *   install the lock last, and let nothing else route.
 * - requests of SharedWorkers, and keepalive fetches and beacons a page sends while it unloads,
 *   never reach this routing: the egress lock below it (`EgressProxy`, the context's proxy) stops
 *   those, and everything else this lock misses.
 */
export async function installNetworkLock(
  context: BrowserContext,
  profile: PortalProfile,
  report: GuardEventSink,
  options: NetworkLockOptions = {},
): Promise<() => Promise<void>> {
  const emit = safeSink(report);

  const handler = async (route: Route, request: Request): Promise<void> => {
    const url = request.url();
    const document = request.resourceType() === 'document' || request.isNavigationRequest();
    // The profile's challenge hosts pass here only while the clerk holds the portal (a take-over).
    const check = challengeHostsOf(context)?.check(url) ?? isAllowedUrl(url, profile);
    // A new tab's page is judged like any other: on the portal's addresses, through the commit gate (the pop-up watchdog decides whether it stays).
    const refusal = check.ok ? undefined : check.reason;
    if (!refusal && options.gate) {
      const contentType = request.headers()['content-type'];
      // A multipart form's bytes too: its files are hashed for the approval card (the text form is UTF-8 decoded, lossy for binary files).
      const postBytes = contentType?.toLowerCase().includes('multipart/form-data') ? (request.postDataBuffer() ?? undefined) : undefined;
      const fromFrame = document ? undefined : frameUrlOf(request);
      const admission = await options.gate.admit({ method: request.method(), url, postData: postDataOf(request), contentType, navigation: document, fromFrame, headers: request.headers(), ...(postBytes ? { postBytes } : {}) });
      if (!admission.ok) {
        await route.abort('blockedbyclient').catch(() => undefined);
        return;
      }
      // Proof of done counts a submission only once the portal answered it (a page can abort its own request).
      // Every answer to a request sending data is read for numbers: two applications in one run are never `done`.
      const gate = options.gate;
      const line = heldRequestLine({ method: request.method(), url });
      if (admission.submission) {
        void request.response().then((answer) => answer && gate.submissionAnswered(line, answerText(request)), () => undefined);
      } else if (admission.committed || !READ_METHODS.has(request.method().toUpperCase())) {
        const kind = gate.submissionsSent > 0 ? 'after_submission' : admission.committed ? 'approved' : 'other';
        void request.response().then((answer) => answer && gate.requestAnswered(line, kind, answerText(request)), () => undefined);
      }
    }
    if (!refusal) {
      const page = document && options.isLockedPage ? pageOf(request) : undefined;
      if (document && options.isLockedPage && !(page && options.isLockedPage(page))) return firstHop(route, request);
      await route.fallback().catch(() => undefined);
      return;
    }
    await route.abort('blockedbyclient').catch(() => undefined);
    emit(
      document
        ? { type: 'navigation_blocked', url, detail: `Stopped the page going to ${hostOf(url)}: ${refusal}` }
        : { type: 'request_blocked', url, detail: `Stopped a ${request.resourceType()} request to ${hostOf(url)}: ${refusal}` },
    );
  };

  /**
   * A new tab's page before the redirect lock is on it: fetched here without following redirects
   * (same method, body and cookies), and answered to the tab only when it is not a redirect off
   * the portal or to an address that commits something; a redirect that stays is answered as a
   * redirect, and the tab's next request comes back here.
   */
  const firstHop = async (route: Route, request: Request): Promise<void> => {
    const url = request.url();
    let response;
    try {
      response = await route.fetch({ maxRedirects: 0 });
    } catch {
      await route.abort('failed').catch(() => undefined);
      return;
    }
    const location = REDIRECTS.has(response.status()) ? response.headers()['location'] : undefined;
    if (location !== undefined) {
      const check = isAllowedUrl(location, profile, url);
      const target = check.ok ? check.href : safeResolve(location, url);
      const refusal = !check.ok ? check.reason : options.gate && !options.gate.redirect(request.method(), check.href).ok ? 'a redirect cannot carry the clerk’s approval' : undefined;
      if (refusal) {
        await route.abort('blockedbyclient').catch(() => undefined);
        emit({ type: 'navigation_blocked', url: target, detail: `Stopped a new tab's redirect from ${hostOf(url)} to ${hostOf(target)}: ${refusal}` });
        return;
      }
    }
    await route.fulfill({ response }).catch(() => undefined);
  };

  /**
   * Why a WebSocket may not open, or undefined: a host off the portal, or an address the commit
   * gate does not let a socket reach. What a socket carries cannot be judged message by message,
   * so it opens only where the portal's request map names a `WEBSOCKET` save or look-up
   * (default deny); any other is refused outright, never held for approval.
   */
  const socketRefusal = (url: URL): string | undefined => {
    const address = asHttp(url);
    if (!isAllowedUrl(address, profile).ok) return `not one of ${profile.name}'s addresses`;
    const judged = options.gate?.classify('WEBSOCKET', address);
    return judged && judged.kind !== 'free' ? `${judged.reason}; a socket's messages cannot be judged, so no socket opens there` : undefined;
  };
  const socketRefused = (url: URL): boolean => socketRefusal(url) !== undefined;
  const socketHandler = (socket: WebSocketRoute): void => {
    const reason = socketRefusal(new URL(socket.url())) ?? 'refused';
    void socket.close({ code: 1008, reason: 'Portal Desk: not a portal address a socket may open' }).catch(() => undefined);
    emit({ type: 'request_blocked', url: socket.url(), detail: `Stopped a WebSocket connection to ${hostOf(socket.url())}${new URL(socket.url()).pathname}: ${reason}` });
  };

  await context.route('**/*', handler);
  await context.routeWebSocket(socketRefused, socketHandler);
  return async () => {
    await context.unroute('**/*', handler).catch(() => undefined);
  };
}

/** The request's body as text (a form, JSON), or null; binary bodies are read as latin-1. */
function postDataOf(request: Request): string | null {
  try {
    return request.postData();
  } catch {
    return request.postDataBuffer()?.toString('latin1') ?? null;
  }
}

/** The address of the frame whose script sent a request; undefined for a worker's. */
/**
 * What the portal answered a submission with, as text: each redirect's address, and the body of
 * the response the chain ends on (a few hops at most). The proof of `done` looks for the number here.
 */
async function answerText(request: Request): Promise<string> {
  const parts: string[] = [];
  let current: Request | null = request;
  for (let hop = 0; current && hop < 6; hop++) {
    const response = await current.response();
    if (!response) break;
    const location = response.headers()['location'];
    if (REDIRECTS.has(response.status()) && location !== undefined) {
      parts.push(location);
      current = current.redirectedTo();
      continue;
    }
    parts.push(await response.text().catch(() => ''));
    break;
  }
  return parts.join('\n');
}

function frameUrlOf(request: Request): string | undefined {
  try {
    return request.frame().url();
  } catch {
    return undefined;
  }
}

/** A socket address judged as the page address it upgrades from (ws → http, wss → https). */
function asHttp(url: URL): string {
  const copy = new URL(url.href);
  if (copy.protocol === 'ws:') return `http:${copy.href.slice('ws:'.length)}`;
  if (copy.protocol === 'wss:') return `https:${copy.href.slice('wss:'.length)}`;
  return copy.href;
}


/** The page a request belongs to; undefined for a new tab's first navigation (Playwright does not know its page yet) and for service workers. */
function pageOf(request: Request): Page | undefined {
  try {
    return request.frame().page();
  } catch {
    return undefined;
  }
}
