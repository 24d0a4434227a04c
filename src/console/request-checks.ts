import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the browser console. It listens on loopback only, yet any web page the clerk
 * opens can send requests to 127.0.0.1, and DNS rebinding can make an attacker's host name
 * resolve there. So every request must:
 * - name this server in its Host header (`127.0.0.1:PORT` or `localhost:PORT`): a rebound name fails;
 * - come from this server's own origin when it says where it comes from (Origin header): another
 *   site's page fails, WebSockets included (browsers always send Origin on them);
 * - carry the secret token printed at start (page and WebSocket: `?token=`; the page's assets may
 *   show the asset cookie the page set instead). Compared in constant time.
 */
export class RequestChecks {
  readonly token: string;
  /** A second secret, only for the page's static assets, kept in an HttpOnly cookie. */
  private readonly assetKey = randomBytes(24).toString('base64url');

  constructor(
    private readonly port: number,
    token?: string,
  ) {
    this.token = token ?? randomBytes(32).toString('base64url');
  }

  get origins(): string[] {
    return [`http://127.0.0.1:${this.port}`, `http://localhost:${this.port}`];
  }

  get cookieName(): string {
    return `portal-desk-assets-${this.port}`;
  }

  /** The Set-Cookie header value the page response carries. */
  assetCookie(): string {
    return `${this.cookieName}=${this.assetKey}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** Host and Origin; null when they pass, else why not. */
  checkHostAndOrigin(req: IncomingMessage): string | null {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) return `Host "${host}" is not this console`;
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.includes(origin)) return `Origin "${origin}" is not this console`;
    return null;
  }

  /** The token given as `?token=` matches. */
  hasToken(url: URL): boolean {
    return sameSecret(url.searchParams.get('token'), this.token);
  }

  /** The token, or the asset cookie the page set. */
  mayLoadAsset(req: IncomingMessage, url: URL): boolean {
    return this.hasToken(url) || sameSecret(cookie(req, this.cookieName), this.assetKey);
  }
}

/** Constant-time comparison (of digests, so unequal lengths take the same path). */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

function cookie(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}
