import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, dialog, safeStorage, session, type BrowserWindow } from 'electron';
import type { Browser } from 'playwright-core';
import { ConsoleService } from '../console/console-service';
import type { DemoPortals } from '../service/demo-portals';
import { defaultDbPath } from '../store/location';
import { dataFolder } from '../vault';
import { wireConsoleIpc } from './console-ipc';
import { type ConsoleOrigin } from './console-policy';
import { createConsoleWindow, preloadPath, registerConsoleScheme, rendererDir, serveConsoleFiles } from './console-window';
import { PortalViews, viewBrowser } from './portal-views';
import { SessionEgress } from './session-egress';
import { RunBindings } from './run-bindings';
import { safeStorageSealer } from './safe-storage-sealer';
import { ContentsRegistry, hardenConsoleSession, hardenContents } from './session-hardening';
import { chromeUserAgent } from './user-agent';
import { appKeySource } from './vault-key';
import { errorMessage } from '../base/error-text';

interface ShellOptions {
  /**
   * The demo portals (the portal lab): only a demo build passes them (`lab/demo/shell.ts`, built
   * with PORTAL_DESK_DEMO=1). The production shell (`./index.ts`) has none: no lab starts, no host
   * name is mapped to loopback, and every profile is a real portal.
   */
  demo?: DemoPortals;
}

/**
 * The Electron composition root, kept thin: it orders the security settings, opens the console
 * service (the same one the browser console serves), and connects it to the window over IPC.
 * Everything that decides anything lives in a tested module beside this one. Call it once, as
 * the main module loads (its switches must be set before `ready`).
 */
export function startShell({ demo }: ShellOptions = {}): void {
  const report = (line: string): void => {
    if (line) console.warn(`[portal-desk] ${line}`);
  };

  // ---- Before ready ----------------------------------------------------------------------------

  // Never a DevTools port: any local process could read every client's cookies through it.
  for (const flag of ['remote-debugging-port', 'remote-debugging-pipe', 'remote-debugging-address']) {
    if (!app.commandLine.hasSwitch(flag)) continue;
    if (app.isPackaged) {
      console.error(`[portal-desk] Refusing to start with --${flag}: a debugging endpoint would expose every client's portal session.`);
      app.exit(2);
    }
    // Unpackaged only: playwright's Electron test launcher connects this way.
    report(`--${flag} is set; allowed only because this is an unpackaged development build`);
  }

  app.enableSandbox();
  registerConsoleScheme();
  // A demo build maps the demo portals' names to loopback; the production shell maps nothing.
  if (demo) app.commandLine.appendSwitch('host-resolver-rules', demo.resolverRules());
  // A page restored from the back-forward cache would skip the engine's request interception.
  app.commandLine.appendSwitch('disable-back-forward-cache');
  // WebRTC only over TCP through the sessions' egress proxies (each portal view sets the same policy).
  app.commandLine.appendSwitch('webrtc-ip-handling-policy', 'disable_non_proxied_udp');
  if (!app.requestSingleInstanceLock()) app.quit();

  const registry = new ContentsRegistry();
  const bindings = new RunBindings();
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, registry, report));
  app.on('window-all-closed', () => app.quit());

  let window: BrowserWindow | undefined;
  let service: ConsoleService | undefined;
  let unwire: (() => void) | undefined;

  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  app.on('before-quit', (event) => {
    if (!service) return;
    event.preventDefault();
    const closing = service;
    service = undefined;
    unwire?.();
    void closing
      .close()
      .catch((err: unknown) => report(`The console service did not close cleanly: ${String(err)}`))
      .finally(() => app.quit());
  });

  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      const message = errorMessage(err);
      console.error(`[portal-desk] ${message}`);
      dialog.showErrorBox('Portal Desk could not start', message);
      app.exit(1);
    });

  // ---- After ready -----------------------------------------------------------------------------

  async function start(): Promise<void> {
    const env = process.env;
    const devServerUrl = app.isPackaged ? undefined : env.ELECTRON_RENDERER_URL;
    const origin: ConsoleOrigin = devServerUrl ? { devServerUrl } : {};

    serveConsoleFiles(rendererDir(__dirname));
    hardenConsoleSession(session.defaultSession, origin, report);

    const resources = app.isPackaged ? process.resourcesPath : join(app.getAppPath(), 'resources');
    const portalFolders = [join(resources, 'portals')];
    const casesDir = casesFolder(env, resources);
    const keySource = await appKeySource({ env, sealer: () => safeStorageSealer(safeStorage), report });
    const userAgent = chromeUserAgent(app.userAgentFallback);
    // Set once the window (and so the views) exist; runs cannot start before the window does.
    const engine: { browser?: () => Promise<Browser> } = {};

    const opened = await ConsoleService.open({
      dbPath: env.PORTAL_DESK_DB ?? defaultDbPath(env),
      casesDir,
      env,
      browser: () => (engine.browser ? engine.browser() : Promise.reject(new Error('The console window is not open yet'))),
      ...(demo ? { demo } : {}),
      portalFolders,
      ...(keySource ? { keySource } : {}),
      // Every run's start (the clerk's, a queue's, the office queue's) offers its client and portal to the context it opens.
      startGate: (run, start) => bindings.starting({ runId: run.runId, clientId: run.clientId, portalId: run.portalId, policy: run.profile }, start),
    });
    service = opened;
    // IPC is ready before the window loads, so the console's first calls find their handler.
    unwire = wireConsoleIpc({
      service: opened,
      consoleContents: () => (window && !window.isDestroyed() ? window.webContents : undefined),
      origin,
      report,
    });

    const consoleWindow = createConsoleWindow({ preloadPath: preloadPath(__dirname), origin, devTools: !app.isPackaged });
    window = consoleWindow;
    registry.setConsole(consoleWindow.webContents);
    const egress = new SessionEgress(report, demo?.resolverRules() ?? '');
    app.once('will-quit', () => void egress.closeAll());
    const views = new PortalViews(consoleWindow, bindings, registry, report, userAgent, egress, opened.clerkHands());
    // The shield over the portal view follows take-overs as they begin and end.
    opened.subscribe((event) => {
      if (event.type === 'run') views.refreshLock();
    });
    engine.browser = viewBrowser(views, { product: `Chrome/${process.versions.chrome}`, userAgent }, report);
  }

}

/** `$PORTAL_DESK_CASES`, else `<data folder>/cases` when it exists, else the demo cases shipped with the app. */
function casesFolder(env: NodeJS.ProcessEnv, resources: string): string {
  if (env.PORTAL_DESK_CASES) return env.PORTAL_DESK_CASES;
  const own = join(dataFolder(env), 'cases');
  return existsSync(own) ? own : join(resources, 'cases');
}
