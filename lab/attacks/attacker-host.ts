import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as HttpsServer } from 'node:https';
import { html } from '../html';
import { sendHtml, type LabRequest } from '../http';
import type { LabState } from '../state';
import { findAttackPage } from './registry';

/**
 * Any host that is not the lab's: count the request, then answer an attack page or a bland one.
 * A request for a document (a page or a frame: the browser marks those with
 * `Upgrade-Insecure-Requests` and asks for HTML) is also recorded as an attacker document.
 */
export function handleAttackerHost(state: LabState, host: string, req: LabRequest, res: ServerResponse): void {
  const search = req.query.toString();
  const path = search ? `${req.path}?${search}` : req.path;
  const at = new Date(state.now()).toISOString();
  state.traffic.logAttacker({
    at,
    host,
    method: req.method,
    path,
    referer: typeof req.headers.referer === 'string' ? req.headers.referer : null,
    body: req.body.slice(0, 4096),
  });
  if (isDocumentRequest(req)) state.attacks.recordAttackerDocument({ at, host, path });
  const page = findAttackPage(host, req.path);
  if (page) {
    const out = page.render(req, state.port);
    res.writeHead(out.status ?? 200, { 'content-type': out.contentType ?? 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(out.body);
    return;
  }
  sendHtml(res, 200, html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${host}</title></head><body><h1>${host}</h1><p>This site is under construction.</p></body></html>`.value);
}

function isDocumentRequest(req: LabRequest): boolean {
  const dest = req.headers['sec-fetch-dest'];
  if (typeof dest === 'string') return ['document', 'iframe', 'frame', 'embed', 'object'].includes(dest);
  const accept = typeof req.headers.accept === 'string' ? req.headers.accept : '';
  return req.headers['upgrade-insecure-requests'] === '1' || accept.startsWith('text/html');
}

/**
 * Counts WebSocket (and any other upgrade) requests to attacker hosts on `server`, then drops
 * the connection: a socket opened to the attacker carries data as well as a page does.
 * `hostOf` answers the attacker host to log for a request, or null for the lab's own hosts.
 */
export function countAttackerUpgrades(server: Server | HttpsServer, state: LabState, hostOf: (hostHeader: string) => string | null): void {
  server.on('upgrade', (raw: IncomingMessage, socket: Duplex) => {
    const host = hostOf(raw.headers.host ?? '');
    if (host !== null) {
      state.traffic.logAttacker({
        at: new Date(state.now()).toISOString(),
        host,
        method: 'UPGRADE',
        path: raw.url ?? '/',
        referer: typeof raw.headers.referer === 'string' ? raw.headers.referer : null,
        body: '',
      });
    }
    socket.destroy();
  });
}
