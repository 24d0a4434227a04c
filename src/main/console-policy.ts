import { ConsoleMethods, type ConsoleMethod } from '../shared/console-api';
import type { Decision, Refusal } from './portal-policy';

/**
 * The console window's own rules, as pure functions: where its files come from, what may call
 * the console API over IPC, and that the window never navigates. No Electron import.
 */

/** The console's files are served from `portal-desk://console/…`: a privileged standard scheme, never `file:`. */
export const CONSOLE_SCHEME = 'portal-desk';
export const CONSOLE_HOST = 'console';
export const CONSOLE_START_URL = `${CONSOLE_SCHEME}://${CONSOLE_HOST}/index.html`;

/**
 * The Content-Security-Policy of every console file, sent as a response header by the protocol
 * handler: scripts and styles only from the console itself (React's style props are CSSOM, which
 * CSP allows), images also from data: (the run's screenshots and live frames), no connections
 * out (the UI talks to main over IPC only), no frames, no workers, no plugins, no form posts,
 * no <base>.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the console UI is expected to be loaded from: the app's scheme, or the dev server in development. */
export interface ConsoleOrigin {
  /** `ELECTRON_RENDERER_URL` of `electron-vite dev` (unpackaged only); undefined in a build. */
  devServerUrl?: string;
}

/** Whether `url` is a console page: `portal-desk://console/…`, or the dev server's origin when one is set. */
export function isConsoleUrl(url: string, origin: ConsoleOrigin = {}): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === `${CONSOLE_SCHEME}:` && parsed.host === CONSOLE_HOST && parsed.username === '' && parsed.password === '') return true;
  if (!origin.devServerUrl) return false;
  try {
    return parsed.origin === new URL(origin.devServerUrl).origin;
  } catch {
    return false;
  }
}

/** What an IPC message's sender is (from Electron's `IpcMainInvokeEvent`). */
interface IpcSender {
  /** `event.sender.id` */
  webContentsId: number;
  /** `event.senderFrame?.url`; undefined when the frame is gone. */
  frameUrl: string | undefined;
  /** Whether the sending frame is the page's main frame (`senderFrame === sender.mainFrame`). */
  isMainFrame: boolean;
}

/**
 * Only the console window's own main frame, showing a console page, may call the console API.
 * A portal view (another webContents), an iframe, or the console window after it was somehow
 * made to show another page are all refused.
 */
export function senderDecision(sender: IpcSender, consoleWebContentsId: number | undefined, origin: ConsoleOrigin = {}): Decision {
  if (consoleWebContentsId === undefined || sender.webContentsId !== consoleWebContentsId) {
    return { allow: false, reason: 'Only the console window may call the console API' };
  }
  if (!sender.isMainFrame) return { allow: false, reason: 'A frame inside the console window may not call the console API' };
  if (!sender.frameUrl || !isConsoleUrl(sender.frameUrl, origin)) {
    return { allow: false, reason: 'The console window is not showing the console, so its calls are refused' };
  }
  return { allow: true };
}

/** A method of the console API (checked before anything else is looked at). */
export function isConsoleMethod(method: unknown): method is ConsoleMethod {
  return typeof method === 'string' && Object.hasOwn(ConsoleMethods, method);
}

/**
 * The console window never navigates: its UI is one page. A link the page shows (an exported
 * report, a portal address) is not opened in it, nor anywhere else.
 */
export function consoleNavigationDecision(url: string): Refusal {
  return { allow: false, reason: `The console window stays on the console; refused a navigation to “${url.slice(0, 80)}”` };
}

/** The IPC answer: a result, or the one-line refusal the UI shows (the ConsoleResponseEnvelope shape, without an id). */
export type IpcAnswer = { ok: true; result: unknown } | { ok: false; error: string };
