import type { Session, WebContents } from 'electron';
import type { HostPolicy } from '../shared/allowed-hosts';
import { CONSOLE_CSP, consoleNavigationDecision, isConsoleUrl, type ConsoleOrigin } from './console-policy';
import { decideForAny, downloadDecision, navigationDecision, permissionDecision, popupDecision, requestDecision, type Decision } from './portal-policy';

/**
 * The Electron wiring of the shell's decisions (`portal-policy.ts`, `console-policy.ts`): this
 * file only connects events to those pure functions and reports what was stopped.
 *
 * Every webContents the app creates is hardened when it is created (`web-contents-created`):
 * no pop-ups, no <webview>, and navigation decided by what the contents is: the console window
 * never navigates; a portal view goes only to its run's portal; anything else goes nowhere.
 */

export type Report = (line: string) => void;

/** What each webContents is, and each portal session's runs, looked up when an event comes. */
export class ContentsRegistry {
  private consoleId: number | undefined;
  private readonly portals = new Map<number, { session: Session; policy: HostPolicy | undefined }>();

  setConsole(contents: WebContents): void {
    this.consoleId = contents.id;
  }

  get consoleContentsId(): number | undefined {
    return this.consoleId;
  }

  /** A portal view: `policy` undefined means a view with no run behind it (it may load nothing). */
  addPortal(contents: WebContents, session: Session, policy: HostPolicy | undefined): void {
    this.portals.set(contents.id, { session, policy });
  }

  removePortal(contentsId: number): void {
    this.portals.delete(contentsId);
  }

  /** The decision for a navigation of `contentsId`. */
  navigation(contentsId: number, url: string, isMainFrame: boolean): Decision {
    if (contentsId === this.consoleId) return consoleNavigationDecision(url);
    const portal = this.portals.get(contentsId);
    if (!portal) return { allow: false, reason: `A window Portal Desk does not know tried to go to “${url.slice(0, 80)}”` };
    return decideForAny(portal.policy ? [portal.policy] : [], (policy) => navigationDecision(url, policy, { isMainFrame }));
  }

  /** The policies of every run whose view lives in `session` (one client: usually one run). */
  policiesOf(session: Session): HostPolicy[] {
    const policies: HostPolicy[] = [];
    for (const portal of this.portals.values()) if (portal.session === session && portal.policy) policies.push(portal.policy);
    return policies;
  }
}

/** Hardens one webContents as it is created, whatever it turns out to be. */
export function hardenContents(contents: WebContents, registry: ContentsRegistry, report: Report): void {
  contents.setWindowOpenHandler(({ url }) => {
    report(popupDecision(url).reason);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    report('Refused a <webview>; Portal Desk embeds no other browsers');
  });
  const judge = (event: { url: string; isMainFrame: boolean; preventDefault(): void }): void => {
    const decision = registry.navigation(contents.id, event.url, event.isMainFrame);
    if (decision.allow) return;
    event.preventDefault();
    report(decision.reason);
  };
  contents.on('will-navigate', judge);
  contents.on('will-frame-navigate', judge);
  contents.on('will-redirect', judge);
}

const hardened = new WeakSet<Session>();

/**
 * A portal session (one client's partition): downloads refused, every request checked against
 * the portal of the runs whose views live in it, every permission denied, no spell-check
 * dictionaries fetched. Installed once per session.
 */
export function hardenPortalSession(session: Session, registry: ContentsRegistry, report: Report, userAgent?: string): void {
  if (hardened.has(session)) return;
  hardened.add(session);
  refuseDownloads(session, report);
  denyPermissions(session, report);
  session.setSpellCheckerEnabled(false);
  if (userAgent) session.setUserAgent(userAgent);
  session.webRequest.onBeforeRequest((details, callback) => {
    const decision = decideForAny(registry.policiesOf(session), (policy) => requestDecision(details, policy));
    callback({ cancel: !decision.allow });
    if (!decision.allow) report(decision.reason);
  });
}

/**
 * The console window's session (the default session): it loads only the console's own files
 * (and the dev server in development); downloads refused, permissions denied.
 */
export function hardenConsoleSession(session: Session, origin: ConsoleOrigin, report: Report): void {
  if (hardened.has(session)) return;
  hardened.add(session);
  refuseDownloads(session, report);
  denyPermissions(session, report);
  session.setSpellCheckerEnabled(false);
  session.webRequest.onBeforeRequest((details, callback) => {
    const allowed = isConsoleUrl(details.url, origin) || details.url.startsWith('devtools:') || (origin.devServerUrl !== undefined && details.url.startsWith('ws:'));
    callback({ cancel: !allowed });
    if (!allowed) report(`The console window may load only its own files; cancelled “${details.url.slice(0, 80)}”`);
  });
  // The protocol handler already sends the CSP with each console file; the session adds it to
  // every console response too (the dev server's included), replacing whatever came.
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isConsoleUrl(details.url, origin)) {
      callback({});
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      if (name.toLowerCase() !== 'content-security-policy') headers[name] = value;
    }
    headers['Content-Security-Policy'] = [origin.devServerUrl ? DEV_SERVER_CSP : CONSOLE_CSP];
    callback({ responseHeaders: headers });
  });
}

/** In development only: Vite's client needs its WebSocket and inline React refresh preamble. */
const DEV_SERVER_CSP = CONSOLE_CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace("connect-src 'self'", "connect-src 'self' ws:");

function refuseDownloads(session: Session, report: Report): void {
  session.on('will-download', (event, item) => {
    event.preventDefault();
    report(downloadDecision(item.getURL(), item.getFilename()).reason);
  });
}

function denyPermissions(session: Session, report: Report): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(false);
    report(permissionDecision(permission, details.requestingUrl).reason);
  });
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.setDisplayMediaRequestHandler((_request, callback) => callback({}));
}
