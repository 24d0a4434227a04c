import type { ConnectOverCDPTransport } from 'playwright-core';
import { errorMessage } from '../../base/error-text';

/**
 * An in-process Chrome DevTools Protocol transport for playwright-core's
 * `chromium.connectOverCDP(transport)`, built on page-level debuggers (Electron's
 * `webContents.debugger`) instead of a browser endpoint. No debugging port is opened: every
 * message stays inside the process.
 *
 * Playwright speaks to a *browser*: it creates contexts and pages, attaches to them, and sends
 * page commands on the sessions it was given. A `webContents.debugger` is one page's debugger.
 * This transport is the browser in between:
 *
 * - Browser-level commands (no `sessionId`) are answered here. `Browser.getVersion`,
 *   `Target.setAutoAttach` and `Target.getTargetInfo` (the three playwright sends on connect);
 *   `Target.createBrowserContext` / `disposeBrowserContext` (virtual contexts: the host decides
 *   which session a context's pages live in); `Target.createTarget` (the host opens a page and
 *   hands over its debugger); `Target.closeTarget`; `Target.attachToBrowserTarget` (for
 *   `context.newCDPSession`); `Storage.get/set/clearCookies` (sent to the context's page, or
 *   held until it opens); `Browser.setDownloadBehavior` and an empty `Browser.grantPermissions`
 *   (acknowledged: downloads and permissions are refused by the host's session, never granted
 *   here). Anything else at browser level is refused with a protocol error naming the method.
 * - Page sessions are real: each page's session is made with `Target.attachToTarget(own id,
 *   flatten)` on its debugger, and child sessions (cross-origin frames, workers, extra
 *   `newCDPSession`s) are flattened sessions of the same debugger, addressed by their own
 *   `sessionId` (`debugger.sendCommand(method, params, sessionId)`). Commands on them are
 *   passed through unchanged, except window-geometry commands (a view has no window of its own).
 */

/** The part of Electron's `webContents.debugger` this transport uses (no Electron import). */
export interface DebuggerLike {
  attach(protocolVersion?: string): void;
  isAttached(): boolean;
  detach(): void;
  sendCommand(method: string, commandParams?: unknown, sessionId?: string): Promise<unknown>;
  on(event: 'message', listener: (event: unknown, method: string, params: unknown, sessionId: string) => void): unknown;
  on(event: 'detach', listener: (event: unknown, reason: string) => void): unknown;
  removeListener(event: 'message', listener: (event: unknown, method: string, params: unknown, sessionId: string) => void): unknown;
  removeListener(event: 'detach', listener: (event: unknown, reason: string) => void): unknown;
}

/** A page the host opened for the transport. */
export interface HostedPage {
  readonly debugger: DebuggerLike;
  /** The page's DevTools target id when the host knows it (Electron: `getOrCreateDevToolsTargetId()`); else asked. */
  readonly targetId?: string;
  /** Called once the transport is done with the page (its debugger already detached). */
  close(): void | Promise<void>;
}

export interface PageRequest {
  /** The virtual browser context the page belongs to. */
  browserContextId: string;
  /** How many pages this context opened before this one (0: the context's first page). */
  index: number;
}

/** Opens pages on request: Electron's shell makes a `WebContentsView`; tests use real Chromium. */
export interface PageHost {
  openPage(request: PageRequest): Promise<HostedPage>;
  /** The context was disposed (after its pages closed): the host may forget what it knew of it. */
  contextClosed?(browserContextId: string): void;
}

/** What `Browser.getVersion` answers (playwright reads the product's version and the user agent). */
export interface BrowserVersion {
  /** e.g. `Chrome/146.0.7680.31` */
  product: string;
  userAgent: string;
  revision?: string;
  jsVersion?: string;
}

interface DebuggerTransportOptions {
  host: PageHost;
  version: BrowserVersion;
  /** Told each browser-level method as it is answered (diagnostics and tests). */
  onBrowserCall?: (method: string) => void;
}

/** The default browser context's id (playwright needs one on every page it is given). */
const DEFAULT_CONTEXT_ID = 'portal-desk-default-context';
const BROWSER_TARGET_ID = 'portal-desk-browser';

type Params = Record<string, unknown>;

interface ProtocolRequest {
  id: number;
  method: string;
  params?: Params;
  sessionId?: string;
}

type ProtocolMessage =
  | { id: number; result: unknown; sessionId?: string }
  | { id: number; error: { code: number; message: string }; sessionId?: string }
  | { method: string; params: unknown; sessionId?: string };

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached: boolean;
  canAccessOpener: boolean;
  browserContextId?: string;
}

interface CookieParam {
  name: string;
  value: string;
  url?: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: string;
  expires?: number;
}

interface ContextState {
  id: string;
  opened: number;
  disposed: boolean;
  pages: Set<PageState>;
  /** Cookies given while the context had no page, set on its first page. */
  pendingCookies: CookieParam[];
  clearOnOpen: boolean;
}

interface PageState {
  targetId: string;
  context: ContextState;
  hosted: HostedPage;
  dbg: DebuggerLike;
  closed: boolean;
  onMessage: (event: unknown, method: string, params: unknown, sessionId: string) => void;
  onDetach: (event: unknown, reason: string) => void;
}

/**
 * A real session of one page's debugger.
 * - `main`: the page session announced to playwright's root (closing it closes the page);
 * - `browser`: made through a virtual browser session (`newCDPSession`), owned by it;
 * - `child`: auto-attached under another session (frames, workers); its events arrive there;
 * - `pending`: seen attaching, not yet claimed by a command's answer.
 */
interface SessionState {
  id: string;
  page: PageState;
  kind: 'main' | 'browser' | 'child' | 'pending';
  targetId: string;
  /** `browser` sessions: the virtual browser session that made it. */
  owner?: string;
}

/** A CDP error answer. */
class ProtocolFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const NOT_FOUND = -32001;
const NO_METHOD = -32601;
const SERVER_ERROR = -32000;
const WINDOW_METHODS = new Set(['Browser.getWindowForTarget', 'Browser.getWindowBounds', 'Browser.setWindowBounds', 'Browser.setWindowState']);

export class DebuggerTransport implements ConnectOverCDPTransport {
  onmessage?: (message: object) => void;
  onclose?: (reason?: string) => void;

  private closed = false;
  private serial = 0;
  private readonly contexts = new Map<string, ContextState>();
  private readonly pages = new Map<string, PageState>();
  private readonly sessions = new Map<string, SessionState>();
  private readonly browserSessions = new Set<string>();

  constructor(private readonly options: DebuggerTransportOptions) {
    this.contexts.set(DEFAULT_CONTEXT_ID, newContext(DEFAULT_CONTEXT_ID));
  }

  send(message: object): void {
    if (this.closed) return;
    void this.dispatch(message as ProtocolRequest);
  }

  /** Closes every page (their debuggers detached, the host told) and reports the connection closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const pages = [...this.pages.values()];
    void Promise.all(pages.map((page) => this.closePage(page))).finally(() => this.onclose?.('The in-process DevTools transport was closed'));
  }

  /** The pages open now (for the host's bookkeeping and tests). */
  openPages(): number {
    return this.pages.size;
  }

  // ---- dispatch -------------------------------------------------------------------------

  private async dispatch(request: ProtocolRequest): Promise<void> {
    // Never answer inside send(): playwright registers its callback after send() returns.
    await Promise.resolve();
    const { id, sessionId } = request;
    try {
      const result = await this.route(request);
      this.emit(withSession({ id, result: result ?? {} }, sessionId));
    } catch (err) {
      const code = err instanceof ProtocolFailure ? err.code : SERVER_ERROR;
      this.emit(withSession({ id, error: { code, message: errorMessage(err) } }, sessionId));
    }
  }

  private route(request: ProtocolRequest): Promise<unknown> | unknown {
    const params = request.params ?? {};
    const sessionId = request.sessionId;
    if (!sessionId) {
      this.options.onBrowserCall?.(request.method);
      return this.browserCommand(request.method, params);
    }
    if (this.browserSessions.has(sessionId)) {
      this.options.onBrowserCall?.(request.method);
      return this.browserSessionCommand(sessionId, request.method, params);
    }
    const session = this.sessions.get(sessionId);
    if (!session || session.page.closed) throw new ProtocolFailure(NOT_FOUND, `Session with given id not found: ${sessionId}`);
    return this.pageCommand(session, request.method, params);
  }

  private emit(message: ProtocolMessage): void {
    if (this.closed) return;
    this.onmessage?.(message);
  }

  // ---- browser level ----------------------------------------------------------------------

  private async browserCommand(method: string, params: Params): Promise<unknown> {
    switch (method) {
      case 'Browser.getVersion':
        return this.version();
      case 'Target.setAutoAttach':
      case 'Target.setDiscoverTargets':
        // Pages exist only when playwright asks for them, and each is announced as it opens.
        return {};
      case 'Target.getTargetInfo':
        return { targetInfo: await this.targetInfo(optionalString(params.targetId)) };
      case 'Target.getBrowserContexts':
        return { browserContextIds: [...this.contexts.keys()].filter((id) => id !== DEFAULT_CONTEXT_ID) };
      case 'Target.createBrowserContext': {
        const id = `portal-desk-context-${++this.serial}`;
        this.contexts.set(id, newContext(id));
        return { browserContextId: id };
      }
      case 'Target.disposeBrowserContext': {
        const context = this.context(params.browserContextId);
        if (context.id === DEFAULT_CONTEXT_ID) throw new ProtocolFailure(SERVER_ERROR, 'The default browser context cannot be disposed');
        context.disposed = true;
        await Promise.all([...context.pages].map((page) => this.closePage(page)));
        this.contexts.delete(context.id);
        this.options.host.contextClosed?.(context.id);
        return {};
      }
      case 'Target.createTarget':
        return { targetId: await this.createTarget(params) };
      case 'Target.closeTarget': {
        const page = this.pages.get(String(params.targetId));
        if (!page) throw new ProtocolFailure(SERVER_ERROR, `No target with given id found: ${String(params.targetId)}`);
        await this.closePage(page);
        return { success: true };
      }
      case 'Target.attachToBrowserTarget': {
        const sessionId = `portal-desk-browser-session-${++this.serial}`;
        this.browserSessions.add(sessionId);
        return { sessionId };
      }
      case 'Target.detachFromTarget':
        return this.detachSession(String(params.sessionId));
      case 'Browser.setDownloadBehavior':
      case 'Browser.cancelDownload':
        // Acknowledged only: the host's session refuses every download whatever is asked here.
        return {};
      case 'Browser.grantPermissions': {
        const asked = Array.isArray(params.permissions) ? params.permissions.map(String) : [];
        if (asked.length === 0) return {};
        throw new ProtocolFailure(SERVER_ERROR, `Portal Desk grants no browser permissions (asked: ${asked.join(', ')}); the portal view's session denies them all`);
      }
      case 'Browser.resetPermissions':
        return {};
      case 'Storage.getCookies':
      case 'Storage.setCookies':
      case 'Storage.clearCookies':
        return this.cookies(method, params);
      case 'Browser.close':
        await Promise.all([...this.pages.values()].map((page) => this.closePage(page)));
        return {};
      default:
        throw new ProtocolFailure(NO_METHOD, `${method} is not answered at browser level: Portal Desk's in-process transport drives page debuggers, not a browser`);
    }
  }

  /** A virtual browser session (`Target.attachToBrowserTarget`): what `context.newCDPSession(page|frame)` uses. */
  private async browserSessionCommand(browserSession: string, method: string, params: Params): Promise<unknown> {
    switch (method) {
      case 'Target.attachToTarget': {
        const targetId = String(params.targetId);
        const page = this.pageOwning(targetId);
        if (!page) throw new ProtocolFailure(SERVER_ERROR, `No target with given id found: ${targetId}`);
        const { sessionId } = (await page.dbg.sendCommand('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
        this.sessions.set(sessionId, { id: sessionId, page, kind: 'browser', targetId, owner: browserSession });
        return { sessionId };
      }
      case 'Target.detachFromTarget':
        return this.detachSession(String(params.sessionId));
      default:
        return this.browserCommand(method, params);
    }
  }

  private version(): Params {
    const v = this.options.version;
    return { protocolVersion: '1.3', product: v.product, revision: v.revision ?? '', userAgent: v.userAgent, jsVersion: v.jsVersion ?? '' };
  }

  private async targetInfo(targetId: string | undefined): Promise<TargetInfo> {
    if (targetId === undefined || targetId === BROWSER_TARGET_ID) {
      return { targetId: BROWSER_TARGET_ID, type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };
    }
    const page = this.pageOwning(targetId);
    if (!page) throw new ProtocolFailure(SERVER_ERROR, `No target with given id found: ${targetId}`);
    const { targetInfo } = (await page.dbg.sendCommand('Target.getTargetInfo', { targetId })) as { targetInfo: TargetInfo };
    return { ...targetInfo, browserContextId: page.context.id };
  }

  private context(id: unknown): ContextState {
    const key = typeof id === 'string' && id !== '' ? id : DEFAULT_CONTEXT_ID;
    const context = this.contexts.get(key);
    if (!context) throw new ProtocolFailure(SERVER_ERROR, `Failed to find browser context with id ${key}`);
    return context;
  }

  // ---- pages ------------------------------------------------------------------------------

  private async createTarget(params: Params): Promise<string> {
    const context = this.context(params.browserContextId);
    if (context.disposed) throw new ProtocolFailure(SERVER_ERROR, `Browser context ${context.id} is closing`);
    const hosted = await this.options.host.openPage({ browserContextId: context.id, index: context.opened++ });
    const page: PageState = {
      targetId: '',
      context,
      hosted,
      dbg: hosted.debugger,
      closed: false,
      onMessage: (_event, method, eventParams, sessionId) => this.pageEvent(page, method, eventParams, sessionId),
      onDetach: () => void this.closePage(page),
    };
    page.dbg.on('message', page.onMessage);
    page.dbg.on('detach', page.onDetach);
    try {
      if (!page.dbg.isAttached()) page.dbg.attach('1.3');
      const { targetInfo } = (await page.dbg.sendCommand('Target.getTargetInfo')) as { targetInfo: TargetInfo };
      page.targetId = hosted.targetId ?? targetInfo.targetId;
      if (this.closed || context.disposed) throw new ProtocolFailure(SERVER_ERROR, 'The browser context closed while its page was opening');
      this.pages.set(page.targetId, page);
      context.pages.add(page);
      await this.applyPendingCookies(context, page);
      const { sessionId } = (await page.dbg.sendCommand('Target.attachToTarget', { targetId: page.targetId, flatten: true })) as { sessionId: string };
      this.sessions.set(sessionId, { id: sessionId, page, kind: 'main', targetId: page.targetId });
      // Announced before the answer: playwright looks the page up as soon as createTarget answers.
      this.emit({
        method: 'Target.attachedToTarget',
        params: {
          sessionId,
          targetInfo: { ...targetInfo, targetId: page.targetId, type: 'page', attached: true, canAccessOpener: false, browserContextId: context.id },
          waitingForDebugger: false,
        },
      });
      return page.targetId;
    } catch (err) {
      await this.closePage(page);
      throw err;
    }
  }

  /** Events from one page's debugger. Root events (no session id) concern the sessions this transport made. */
  private pageEvent(page: PageState, method: string, params: unknown, sessionId: string | undefined): void {
    if (page.closed) return;
    const p = (params ?? {}) as Params;
    if (!sessionId) {
      if (method === 'Target.attachedToTarget') {
        const id = String(p.sessionId);
        if (!this.sessions.has(id)) this.sessions.set(id, { id, page, kind: 'pending', targetId: targetIdOf(p) });
      } else if (method === 'Target.detachedFromTarget') {
        this.sessionGone(String(p.sessionId));
      }
      return;
    }
    if (method === 'Target.attachedToTarget') {
      const id = String(p.sessionId);
      this.sessions.set(id, { id, page, kind: 'child', targetId: targetIdOf(p) });
    }
    this.emit({ method, params, sessionId });
    if (method === 'Target.detachedFromTarget') {
      const id = String(p.sessionId);
      if (this.sessions.get(id)?.kind === 'child') this.sessions.delete(id);
    }
  }

  /** A session this transport made went away (detached, or its target closed). */
  private sessionGone(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    if (session.kind === 'main') {
      // Its target went away: the page is closed (closePage tells playwright).
      void this.closePage(session.page);
      return;
    }
    this.sessions.delete(id);
    if (session.kind === 'browser' && session.owner) {
      this.emit({ method: 'Target.detachedFromTarget', params: { sessionId: id, targetId: session.targetId }, sessionId: session.owner });
    }
  }

  private async detachSession(id: string): Promise<Params> {
    if (this.browserSessions.delete(id)) {
      const owned = [...this.sessions.values()].filter((s) => s.kind === 'browser' && s.owner === id);
      await Promise.all(owned.map((s) => this.detachSession(s.id)));
      return {};
    }
    const session = this.sessions.get(id);
    if (!session) throw new ProtocolFailure(SERVER_ERROR, `No session with given id: ${id}`);
    if (session.kind === 'main') {
      await this.closePage(session.page);
      return {};
    }
    this.sessionGone(id);
    await session.page.dbg.sendCommand('Target.detachFromTarget', { sessionId: id }).catch(() => undefined);
    return {};
  }

  private async pageCommand(session: SessionState, method: string, params: Params): Promise<unknown> {
    if (WINDOW_METHODS.has(method)) {
      throw new ProtocolFailure(SERVER_ERROR, `${method}: a portal view has no browser window of its own; the console lays it out`);
    }
    if (method === 'Page.close' && session.kind === 'main') {
      await this.closePage(session.page);
      return {};
    }
    return session.page.dbg.sendCommand(method, params, session.id);
  }

  /** The page whose debugger reaches `targetId`: the page itself or one of its frames or workers. */
  private pageOwning(targetId: string): PageState | undefined {
    const page = this.pages.get(targetId);
    if (page) return page;
    for (const session of this.sessions.values()) {
      if (session.targetId === targetId && !session.page.closed) return session.page;
    }
    return undefined;
  }

  private async closePage(page: PageState): Promise<void> {
    if (page.closed) return;
    page.closed = true;
    for (const session of [...this.sessions.values()]) {
      if (session.page !== page) continue;
      this.sessions.delete(session.id);
      if (session.kind === 'main') {
        this.emit({ method: 'Target.detachedFromTarget', params: { sessionId: session.id, targetId: page.targetId } });
      } else if (session.kind === 'browser' && session.owner) {
        this.emit({ method: 'Target.detachedFromTarget', params: { sessionId: session.id, targetId: session.targetId }, sessionId: session.owner });
      }
    }
    page.dbg.removeListener('message', page.onMessage);
    page.dbg.removeListener('detach', page.onDetach);
    if (this.pages.get(page.targetId) === page) this.pages.delete(page.targetId);
    page.context.pages.delete(page);
    try {
      if (page.dbg.isAttached()) page.dbg.detach();
    } catch {
      // The page's contents may already be gone; there is nothing left to detach.
    }
    try {
      await page.hosted.close();
    } catch {
      // The host's own clean-up failing does not keep the page open.
    }
  }

  // ---- cookies ----------------------------------------------------------------------------

  /**
   * Cookies of a context live in its pages' storage (the host's session): the commands go to the
   * context's first open page. Before a page exists, cookies given are held and set on the
   * first page before playwright sees it; asked for then, only those held cookies are known.
   */
  private async cookies(method: string, params: Params): Promise<unknown> {
    const context = this.context(params.browserContextId);
    const rest: Params = { ...params };
    delete rest.browserContextId;
    const page = [...context.pages].find((p) => !p.closed);
    if (page) return pageCookies(page.dbg, method, rest);
    if (method === 'Storage.setCookies') {
      context.pendingCookies.push(...((rest.cookies as CookieParam[] | undefined) ?? []));
      return {};
    }
    if (method === 'Storage.clearCookies') {
      context.pendingCookies = [];
      context.clearOnOpen = true;
      return {};
    }
    return { cookies: context.pendingCookies.map(heldCookie) };
  }

  private async applyPendingCookies(context: ContextState, page: PageState): Promise<void> {
    if (context.clearOnOpen) await pageCookies(page.dbg, 'Storage.clearCookies', {});
    if (context.pendingCookies.length) await pageCookies(page.dbg, 'Storage.setCookies', { cookies: context.pendingCookies });
    context.clearOnOpen = false;
    context.pendingCookies = [];
  }
}

/**
 * Cookie commands on a page's own session. `Storage.*` cookie commands sent to a page session
 * act on the browser's DEFAULT storage, not the page's (measured in Chromium 156: a cookie set
 * that way is invisible to the page and visible in the default context). In Electron that would
 * be the console window's session. The `Network.*` cookie commands act on the page's own
 * storage partition (the client's session), so those are used.
 */
async function pageCookies(dbg: DebuggerLike, method: string, params: Params): Promise<unknown> {
  switch (method) {
    case 'Storage.setCookies':
      return dbg.sendCommand('Network.setCookies', { cookies: params.cookies ?? [] });
    case 'Storage.clearCookies':
      return dbg.sendCommand('Network.clearBrowserCookies', {});
    default:
      // Deprecated in favour of Storage.getCookies, which is browser-wide; still the only per-partition read.
      return dbg.sendCommand('Network.getAllCookies', {});
  }
}

/** Convenience: a transport for `chromium.connectOverCDP(createDebuggerTransport(...))`. */
export function createDebuggerTransport(options: DebuggerTransportOptions): DebuggerTransport {
  return new DebuggerTransport(options);
}

function newContext(id: string): ContextState {
  return { id, opened: 0, disposed: false, pages: new Set(), pendingCookies: [], clearOnOpen: false };
}

function withSession<T extends object>(message: T, sessionId: string | undefined): T & { sessionId?: string } {
  return sessionId ? { ...message, sessionId } : message;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function targetIdOf(params: Params): string {
  const info = params.targetInfo as { targetId?: unknown } | undefined;
  return String(info?.targetId ?? '');
}

/** A held cookie (Storage.setCookies input) as Storage.getCookies would report it. */
function heldCookie(cookie: CookieParam): Params {
  let domain = cookie.domain;
  let path = cookie.path;
  let secure = cookie.secure;
  if (cookie.url) {
    try {
      const url = new URL(cookie.url);
      domain ??= url.hostname;
      path ??= url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1) || '/';
      secure ??= url.protocol === 'https:';
    } catch {
      // A malformed url gives no domain; the cookie is reported with what it has.
    }
  }
  const expires = cookie.expires ?? -1;
  return {
    name: cookie.name,
    value: cookie.value,
    domain: domain ?? '',
    path: path ?? '/',
    expires,
    size: cookie.name.length + cookie.value.length,
    httpOnly: cookie.httpOnly ?? false,
    secure: secure ?? false,
    session: expires === -1,
    ...(cookie.sameSite ? { sameSite: cookie.sameSite } : {}),
  };
}
