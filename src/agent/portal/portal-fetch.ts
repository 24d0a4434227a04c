import type { Page } from 'playwright-core';
import type { PortalProfile } from '../../shared/portal-profile';
import { isAllowedUrl } from '../../shared/allowed-hosts';
import { classifyRequest } from '../guard/request-class';
import { errorText } from '../../base/error-text';

/**
 * A GET that code makes on the portal next to the page (the applications list, a receipt): only
 * to the portal's own hosts (`isAllowedUrl`), with the client's cookies, never following a
 * redirect (a redirect usually means the session has ended).
 *
 * It goes through `page.request` (the context's cookies, out of reach of the page's scripts).
 * Where that cannot reach the portal at all — the portal lab's host names resolve only inside
 * Chromium (`--host-resolver-rules`), as would a portal behind a browser-only proxy — it is made
 * from the page itself with `fetch`, on the same origin, with the same cookies. So too over https
 * behind the egress lock, which ends TLS with a CA only the browser trusts: `page.request` (in
 * this process) does not, and the page's fetch goes through the lock, which verifies the portal.
 */
type PortalFetch =
  | { ok: true; url: string; status: number; contentType: string; bytes: Uint8Array }
  | { ok: false; reason: string; status?: number };

const NETWORK_ERROR = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ERR_NAME_NOT_RESOLVED|getaddrinfo|certificate|CERT_/;
const MAX_FETCH_BYTES = 10 * 1024 * 1024;

export async function fetchFromPortal(page: Page, url: string, profile: PortalProfile): Promise<PortalFetch> {
  const check = isAllowedUrl(url, profile, page.url());
  if (!check.ok) return { ok: false, reason: `not on the portal's hosts: ${check.reason}` };
  // Code's own requests are judged by their effect like any other: code never fetches an address that commits.
  const judged = classifyRequest({ method: 'GET', url: check.href }, profile, { finalReview: false });
  if (judged.kind !== 'free') return { ok: false, reason: `not fetched by code: ${judged.reason}` };
  try {
    const response = await page.request.get(check.href, { timeout: 15_000, maxRedirects: 0 });
    return answer(check.href, response.status(), response.headers()['content-type'] ?? '', await response.body());
  } catch (err) {
    const message = errorText(err);
    if (!NETWORK_ERROR.test(message)) return { ok: false, reason: message };
  }
  return fetchInPage(page, check.href);
}

async function fetchInPage(page: Page, href: string): Promise<PortalFetch> {
  if (new URL(href).origin !== new URL(page.url()).origin) return { ok: false, reason: 'the portal cannot be reached from here except by the page, and only on its own origin' };
  try {
    const got = await page.evaluate(
      async ({ url, limit }) => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 15_000);
        try {
          const r = await fetch(url, { credentials: 'same-origin', redirect: 'manual', cache: 'no-store', signal: controller.signal });
          if (r.type === 'opaqueredirect') return { status: 303, contentType: '', base64: '' };
          const buffer = new Uint8Array(await r.arrayBuffer());
          if (buffer.byteLength > limit) return { status: 413, contentType: '', base64: '' };
          let binary = '';
          for (let i = 0; i < buffer.length; i += 0x8000) binary += String.fromCharCode(...buffer.subarray(i, i + 0x8000));
          return { status: r.status, contentType: r.headers.get('content-type') ?? '', base64: btoa(binary) };
        } finally {
          clearTimeout(timer);
        }
      },
      { url: href, limit: MAX_FETCH_BYTES },
    );
    return answer(href, got.status, got.contentType, Buffer.from(got.base64, 'base64'));
  } catch (err) {
    return { ok: false, reason: errorText(err) };
  }
}

function answer(url: string, status: number, contentType: string, bytes: Uint8Array): PortalFetch {
  if (status >= 300 && status < 400) return { ok: false, status, reason: `redirected (HTTP ${status}): the session has probably ended` };
  if (status === 413 || bytes.byteLength > MAX_FETCH_BYTES) return { ok: false, status, reason: `larger than ${MAX_FETCH_BYTES / 1024 / 1024} MB` };
  if (status !== 200) return { ok: false, status, reason: `HTTP ${status}` };
  return { ok: true, url, status, contentType, bytes };
}

