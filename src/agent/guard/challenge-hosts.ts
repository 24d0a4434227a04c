import type { BrowserContext, Page, Request } from 'playwright-core';
import { isAllowedUrl, isChallengeUrl } from '../../shared/allowed-hosts';
import type { PortalProfile } from '../../shared/portal-profile';

type HostCheck = ReturnType<typeof isAllowedUrl>;
type ChallengeProfile = Pick<PortalProfile, 'name' | 'allowedHosts' | 'challengeHosts' | 'allowHttp'>;

/** The challenge hosts of each context `openGuardedContext` made. */
const BY_CONTEXT = new WeakMap<BrowserContext, ChallengeHosts>();

/**
 * A portal profile's challenge hosts (`challengeHosts`: a CAPTCHA's own hosts) as the host locks
 * see them: closed while the agent works, open only while the clerk holds the run's portal in a
 * take-over (`open` when they take it, `close` when they hand it back or the take-over ends any
 * other way). The egress lock, the network lock and the redirect lock ask `check` instead of
 * `isAllowedUrl`: the portal's addresses always pass, a challenge host only while open. The commit
 * gate judges every request to one as before (`classifyRequest`: reading, or the challenge's own
 * frame sending; nothing else).
 *
 * It also remembers, per page, the last request for the main document, so a take-over knows
 * whether reloading the page would send a form again.
 */
export class ChallengeHosts {
  private openNow = false;
  private readonly closeListeners: (() => void)[] = [];
  private readonly documents = new WeakMap<Page, { method: string; url: string }>();

  constructor(private readonly profile: ChallengeProfile) {}

  /** The hosts the profile lists (none: nothing ever opens). */
  get hosts(): readonly string[] {
    return this.profile.challengeHosts;
  }

  get isOpen(): boolean {
    return this.openNow;
  }

  /** Registers these hosts as the context's and starts remembering its main documents' methods. */
  attach(context: BrowserContext): void {
    BY_CONTEXT.set(context, this);
    context.on('request', (request) => this.seen(request));
  }

  /**
   * The host locks' one question: may the browser reach `url` now? The portal's addresses
   * (`isAllowedUrl`) always; a challenge host (`isChallengeUrl`) only while open, and refused
   * with its own reason otherwise. `challenge` marks an address let through as a challenge host.
   */
  check(url: string, base?: string): HostCheck & { challenge?: true } {
    const portal = isAllowedUrl(url, this.profile, base);
    if (portal.ok || this.profile.challengeHosts.length === 0) return portal;
    const challenge = isChallengeUrl(url, this.profile, base);
    if (!challenge.ok) return portal;
    if (this.openNow) return { ...challenge, challenge: true };
    return { ok: false, reason: `${challenge.host} is one of ${this.profile.name}'s challenge hosts, open only while the clerk holds the portal in a take-over` };
  }

  /** `url` (resolved against `base`) as a challenge-host address, open or not; null when it is not one. */
  address(url: string, base?: string): string | null {
    const check = isChallengeUrl(url, this.profile, base);
    return check.ok ? check.href : null;
  }

  /** Opens the hosts (the clerk holds the portal). False when none are listed or they are open already. */
  open(): boolean {
    if (this.openNow || this.profile.challengeHosts.length === 0) return false;
    this.openNow = true;
    return true;
  }

  /** Closes the hosts again; every listener cuts what it still holds open to them. False when they were not open. */
  close(): boolean {
    if (!this.openNow) return false;
    this.openNow = false;
    for (const listener of this.closeListeners) {
      try {
        listener();
      } catch {
        // One listener's failure does not keep the hosts open.
      }
    }
    return true;
  }

  /** Called each time the hosts close (the egress lock cuts its tunnels to them). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * Whether the page's current main document came from a GET (so reloading it sends no form
   * again): the last main-frame navigation request seen was a GET for the address the page shows.
   * False when unknown.
   */
  shownByGet(page: Page): boolean {
    const last = this.documents.get(page);
    return last !== undefined && last.method === 'GET' && withoutHash(last.url) === withoutHash(page.url());
  }

  private seen(request: Request): void {
    if (!request.isNavigationRequest()) return;
    try {
      const frame = request.frame();
      const page = frame.page();
      // A redirect's last hop comes last: a form posted and answered with 303 shows a GET's page.
      if (frame === page.mainFrame()) this.documents.set(page, { method: request.method().toUpperCase(), url: request.url() });
    } catch {
      // A new tab's first request belongs to no page yet.
    }
  }
}

/** The challenge hosts of a context opened with `openGuardedContext`, if any. */
export function challengeHostsOf(context: BrowserContext): ChallengeHosts | undefined {
  return BY_CONTEXT.get(context);
}

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
