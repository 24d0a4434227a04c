import { extname, relative, resolve, sep } from 'node:path';
import { CONSOLE_CSP, CONSOLE_HOST, CONSOLE_SCHEME } from './console-policy';

/**
 * Which file of the built console (`out/renderer`) a `portal-desk://console/…` request gets,
 * and the headers it goes out with. Pure: the protocol handler in `console-window.ts` reads the
 * file. Anything outside the renderer folder, any other host, and any odd path is refused.
 */

type FileAnswer =
  | { ok: true; path: string; headers: Record<string, string> }
  | { ok: false; status: 400 | 403 | 404; reason: string };

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json; charset=utf-8',
};

/** Headers every console file carries: the CSP, no sniffing, no referrer, no embedding. */
function consoleHeaders(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

export function consoleFile(requestUrl: string, rendererDir: string): FileAnswer {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: 'not a URL' };
  }
  if (url.protocol !== `${CONSOLE_SCHEME}:` || url.host !== CONSOLE_HOST) return { ok: false, status: 403, reason: `not a console address: ${url.protocol}//${url.host}` };
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { ok: false, status: 400, reason: 'badly encoded path' };
  }
  if (path.includes('\0') || path.includes('\\')) return { ok: false, status: 400, reason: 'odd characters in the path' };
  if (path === '/' || path === '') path = '/index.html';
  const root = resolve(rendererDir);
  const file = resolve(root, `.${path}`);
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..') || resolve(root, rel) !== file) {
    return { ok: false, status: 403, reason: 'outside the console folder' };
  }
  const type = TYPES[extname(file).toLowerCase()];
  if (!type) return { ok: false, status: 404, reason: `no such console file type: ${extname(file) || '(none)'}` };
  return { ok: true, path: file, headers: consoleHeaders(type) };
}
