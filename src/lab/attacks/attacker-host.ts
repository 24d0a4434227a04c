import type { ServerResponse } from 'node:http';
import { html } from '../html';
import { sendHtml, type LabRequest } from '../http';
import type { LabState } from '../state';
import { findAttackPage } from './registry';

/** Any host that is not the lab's: count the request, then answer an attack page or a bland one. */
export function handleAttackerHost(state: LabState, host: string, req: LabRequest, res: ServerResponse): void {
  const search = req.query.toString();
  state.traffic.logAttacker({
    at: new Date(state.now()).toISOString(),
    host,
    method: req.method,
    path: search ? `${req.path}?${search}` : req.path,
    referer: typeof req.headers.referer === 'string' ? req.headers.referer : null,
    body: req.body.slice(0, 4096),
  });
  const page = findAttackPage(host, req.path);
  if (page) {
    const out = page.render(req, state.port);
    res.writeHead(out.status ?? 200, { 'content-type': out.contentType ?? 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(out.body);
    return;
  }
  sendHtml(res, 200, html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${host}</title></head><body><h1>${host}</h1><p>This site is under construction.</p></body></html>`.value);
}
