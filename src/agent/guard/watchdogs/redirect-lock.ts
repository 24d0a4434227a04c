import type { CDPSession, Frame, Page } from 'playwright-core';
import type { PortalProfile } from '../../../shared/portal-profile';
import { isAllowedUrl } from '../../../shared/allowed-hosts';
import { challengeHostsOf } from '../challenge-hosts';
import type { CommitGate } from '../commit-gate';
import { hostOf, safeSink, type GuardEventSink } from './guard-event';

export const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface PausedResponse {
  requestId: string;
  request: { url: string; method?: string };
  resourceType: string;
  responseStatusCode?: number;
  responseHeaders?: { name: string; value: string }[];
}

/**
 * Stops redirects off the portal. Playwright's request routing (the network lock) sees only the
 * first request of a redirect chain and lets every later hop through without asking, so an
 * allowed address that answers `302 Location: https://attacker.example/?data=…` would reach the
 * attacker. This watchdog pauses every response of the page at the Chrome DevTools Protocol's
 * Fetch response stage and fails any redirect whose Location is not one of the portal's
 * addresses before Chromium follows it, for documents and subresources alike.
 *
 * Frames from another site than the page run in their own renderer with their own DevTools
 * target (site isolation); each gets its own session when it commits a page. The first
 * subresources of such a frame can load before that session is attached: a redirect among them
 * is the one hop this watchdog can miss. (The egress lock, the context's proxy, sees every hop
 * as a request of its own and closes that gap.)
 */
export async function installRedirectLock(page: Page, profile: PortalProfile, report: GuardEventSink, gate?: CommitGate): Promise<() => Promise<void>> {
  const emit = safeSink(report);
  const context = page.context();
  const frameSessions = new Map<Frame, Promise<CDPSession | undefined>>();
  let disposed = false;

  const onPaused = async (session: CDPSession, event: PausedResponse): Promise<void> => {
    const status = event.responseStatusCode ?? 0;
    const location = REDIRECTS.has(status) ? event.responseHeaders?.find((h) => h.name.toLowerCase() === 'location')?.value : undefined;
    if (location !== undefined) {
      const check = challengeHostsOf(context)?.check(location, event.request.url) ?? isAllowedUrl(location, profile, event.request.url);
      if (!check.ok) {
        await session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
        const target = safeResolve(location, event.request.url);
        const document = event.resourceType === 'Document';
        emit({
          type: document ? 'navigation_blocked' : 'request_blocked',
          url: target,
          detail: `Stopped a redirect from ${hostOf(event.request.url)} to ${hostOf(target)}${document ? '' : ` (${event.resourceType.toLowerCase()})`}: ${check.reason}`,
        });
        return;
      }
      // Same host, but a hop to an address that commits something is refused: a redirect carries no approval.
      const method = status === 307 || status === 308 ? (event.request.method ?? 'GET') : 'GET';
      if (gate && !gate.redirect(method, check.href).ok) {
        await session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
        return;
      }
    }
    await session
      .send('Fetch.continueResponse', { requestId: event.requestId })
      .catch(() => session.send('Fetch.continueRequest', { requestId: event.requestId }))
      .catch(() => undefined);
  };

  const attach = async (target: Page | Frame): Promise<CDPSession> => {
    const session = await context.newCDPSession(target);
    session.on('Fetch.requestPaused', (event) => void onPaused(session, event));
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Response' }] });
    return session;
  };

  /** A frame in its own renderer gets its own session; other frames are covered by the page's. */
  const attachFrame = (frame: Frame): void => {
    if (disposed || frame === page.mainFrame()) return;
    const previous = frameSessions.get(frame);
    const next = (async () => {
      const old = await previous;
      await old?.detach().catch(() => undefined);
      if (disposed || frame.isDetached()) return undefined;
      return attach(frame).catch(() => undefined);
    })();
    frameSessions.set(frame, next);
  };
  const detachFrame = (frame: Frame): void => {
    const session = frameSessions.get(frame);
    frameSessions.delete(frame);
    void session?.then((s) => s?.detach()).catch(() => undefined);
  };

  const pageSession = await attach(page);
  page.on('framenavigated', attachFrame);
  page.on('framedetached', detachFrame);
  for (const frame of page.frames()) attachFrame(frame);

  return async () => {
    disposed = true;
    page.off('framenavigated', attachFrame);
    page.off('framedetached', detachFrame);
    const sessions = [...frameSessions.values()];
    frameSessions.clear();
    await Promise.all([pageSession, ...(await Promise.all(sessions))].map((s) => s?.detach().catch(() => undefined)));
  };
}

export function safeResolve(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}
