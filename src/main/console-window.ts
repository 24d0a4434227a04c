import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BrowserWindow, protocol } from 'electron';
import { consoleFile } from './console-files';
import { CONSOLE_SCHEME, CONSOLE_START_URL, type ConsoleOrigin } from './console-policy';

/**
 * The console window: the React console, served from `portal-desk://console/` by a protocol
 * handler that sends each file with the console's CSP (never `file://`, whose pages share one
 * opaque origin and cannot be told apart), in a sandboxed, context-isolated renderer with no
 * Node, and the typed bridge from the preload as its only way out.
 */

/** Before `ready`: the console's scheme is a secure standard scheme (an origin of its own, fetch allowed). No CSP bypass. */
export function registerConsoleScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: CONSOLE_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** After `ready`: serves the built renderer (`out/renderer`) under the console scheme. */
export function serveConsoleFiles(rendererDir: string): void {
  protocol.handle(CONSOLE_SCHEME, async (request) => {
    const answer = consoleFile(request.url, rendererDir);
    if (!answer.ok) return new Response(`Portal Desk: ${answer.reason}`, { status: answer.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    try {
      return new Response(await readFile(answer.path), { status: 200, headers: answer.headers });
    } catch {
      return new Response('Portal Desk: no such console file', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
  });
}

export function createConsoleWindow(options: { preloadPath: string; origin: ConsoleOrigin; devTools: boolean }): BrowserWindow {
  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 1000,
    minHeight: 640,
    title: 'Portal Desk',
    show: false,
    backgroundColor: '#ffffff',
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      devTools: options.devTools,
    },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(options.origin.devServerUrl ?? CONSOLE_START_URL);
  return window;
}

/** The built preload, beside the built main (`out/main/index.js` → `out/preload/index.js`). */
export function preloadPath(mainDir: string): string {
  return join(mainDir, '../preload/index.js');
}

/** The built renderer, beside the built main. */
export function rendererDir(mainDir: string): string {
  return join(mainDir, '../renderer');
}
