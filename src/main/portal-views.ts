import { session as electronSession, WebContentsView, type BrowserWindow } from 'electron';
import { chromium, type Browser } from 'playwright-core';
import { createDebuggerTransport, type HostedPage, type PageHost, type PageRequest } from '../agent/browser/cdp-transport';
import { portalViewBounds } from './portal-layout';
import { clientPartition, UNBOUND_PARTITION, type RunBindings } from './run-bindings';
import type { SessionEgress } from './session-egress';
import { hardenPortalSession, type ContentsRegistry, type Report } from './session-hardening';
import { shieldShown, watchClerkPresses, type ClerkHands } from './portal-input-lock';
import { errorMessage } from '../base/error-text';

/**
 * The portal views: each page the engine opens is a `WebContentsView` in the console window,
 * in its client's own session (`persist:client-<clientId>`), handed to playwright through the
 * in-process DevTools transport (`webContents.debugger`; no debugging port), behind the
 * session's egress lock (`SessionEgress`). The newest open view is the one shown: the active
 * run's portal. A transparent shield lies over it unless the clerk holds its run (a take-over),
 * so the clerk's mouse and keyboard never race the agent (`portal-input-lock.ts`).
 */
export class PortalViews implements PageHost {
  private readonly open: WebContentsView[] = [];
  /** Each open view's run, once its start bound it. */
  private readonly runOf = new Map<WebContentsView, () => string | undefined>();
  private shield: WebContentsView | undefined;

  constructor(
    private readonly window: BrowserWindow,
    private readonly bindings: RunBindings,
    private readonly registry: ContentsRegistry,
    private readonly report: Report,
    private readonly userAgent: string,
    private readonly egress: SessionEgress,
    private readonly hands: ClerkHands,
  ) {
    window.on('resize', () => this.layout());
  }

  /** A take-over began or ended somewhere: the shield follows the shown view's run. */
  refreshLock(): void {
    this.layout();
  }

  async openPage(request: PageRequest): Promise<HostedPage> {
    if (this.window.isDestroyed()) throw new Error('The console window is closed; no portal view can open');
    const binding = this.bindings.claim(request.browserContextId);
    if (!binding) this.report(`A browser context opened with no run behind it (${request.browserContextId}); its view may load nothing`);
    const session = electronSession.fromPartition(binding ? clientPartition(binding.clientId) : UNBOUND_PARTITION);
    hardenPortalSession(session, this.registry, this.report, this.userAgent);

    const view = new WebContentsView({
      webPreferences: {
        session,
        sandbox: true,
        contextIsolation: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        safeDialogs: true,
        // The engine keeps working on a view the clerk is not looking at (window minimised, or a
        // view hidden behind the newest): no throttled timers or animation frames.
        backgroundThrottling: false,
        autoplayPolicy: 'document-user-activation-required',
      },
    });
    const contents = view.webContents;
    // WebRTC may only use TCP through the session's proxy (which refuses it): no UDP past the lock.
    contents.setWebRTCIPHandlingPolicy('disable_non_proxied_udp');
    this.registry.addPortal(contents, session, binding?.policy);
    const runId = (): string | undefined => binding?.runId;
    this.runOf.set(view, runId);
    watchClerkPresses(contents, runId, this.hands);
    // Below every page of the session: only the addresses of its runs' portals get out.
    await this.egress.lock(session, this.registry.policiesOf(session));
    this.window.contentView.addChildView(view);
    this.open.push(view);
    this.layout();

    const close = (): void => {
      this.registry.removePortal(contents.id);
      void this.egress.lock(session, this.registry.policiesOf(session)).catch((err: unknown) => this.report(`The egress lock could not be narrowed: ${String(err)}`));
      const at = this.open.indexOf(view);
      if (at >= 0) this.open.splice(at, 1);
      this.runOf.delete(view);
      if (!this.window.isDestroyed()) this.window.contentView.removeChildView(view);
      if (!contents.isDestroyed()) contents.close();
      this.layout();
    };
    try {
      // A committed blank document, so the page has a frame tree when playwright attaches.
      await contents.loadURL('about:blank');
    } catch (err) {
      close();
      throw err;
    }
    return { debugger: contents.debugger, targetId: contents.getOrCreateDevToolsTargetId(), close };
  }

  contextClosed(browserContextId: string): void {
    this.bindings.release(browserContextId);
  }

  /** Only the newest view is shown, on the right of the console, under the shield unless the clerk holds its run. */
  private layout(): void {
    if (this.window.isDestroyed()) return;
    const [width, height] = this.window.getContentSize();
    const bounds = portalViewBounds({ width: width ?? 0, height: height ?? 0 });
    this.open.forEach((view, index) => {
      const shown = index === this.open.length - 1;
      view.setVisible(shown);
      view.setBounds(shown ? bounds : { x: 0, y: 0, width: 0, height: 0 });
    });
    const top = this.open[this.open.length - 1];
    const shield = this.shieldView();
    // Added again, it becomes the topmost view: above a portal view opened after it.
    this.window.contentView.addChildView(shield);
    shield.setBounds(bounds);
    shield.setVisible(!!top && shieldShown(this.runOf.get(top)?.(), this.hands));
  }

  /** A transparent, empty view: it takes the clerk's mouse (and so the focus) over the portal view. */
  private shieldView(): WebContentsView {
    if (this.shield && !this.shield.webContents.isDestroyed()) return this.shield;
    const shield = new WebContentsView({ webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false, spellcheck: false } });
    shield.setBackgroundColor('#00000000');
    this.shield = shield;
    return shield;
  }
}

/**
 * The engine's browser: playwright-core connected over the in-process transport. One per app;
 * connected on first need and again after a disconnect.
 */
export function viewBrowser(views: PortalViews, version: { product: string; userAgent: string }, report: Report): () => Promise<Browser> {
  let connected: Promise<Browser> | undefined;
  return () => {
    if (!connected) {
      const transport = createDebuggerTransport({ host: views, version });
      const attempt = chromium.connectOverCDP(transport, { timeout: 30_000 });
      connected = attempt;
      attempt.then(
        (browser) => browser.on('disconnected', () => (connected = connected === attempt ? undefined : connected)),
        (err: unknown) => {
          report(`Could not connect the engine to the portal views: ${errorMessage(err)}`);
          if (connected === attempt) connected = undefined;
        },
      );
    }
    return connected;
  };
}
