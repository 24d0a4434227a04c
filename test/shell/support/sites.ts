import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The portal's host and a different site serving a frame inside it (a separate renderer under site isolation). */
export const PORTAL_HOST = 'forms.portal.example';
export const WIDGET_HOST = 'widget.other.example';
export const ATTACKER_HOST = 'attacker.example';

export interface Hit {
  host: string;
  path: string;
  cookie: string;
}

/**
 * One loopback HTTP server answering several host names (Chromium maps them all to 127.0.0.1
 * with `--host-resolver-rules`). Records every request so tests can tell what reached whom.
 */
export class Sites {
  readonly hits: Hit[] = [];
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  origin(host: string = PORTAL_HOST): string {
    return `http://${host}:${this.port}`;
  }

  hitsOn(host: string): Hit[] {
    return this.hits.filter((h) => h.host === host);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    this.hits.push({ host, path, cookie: req.headers.cookie ?? '' });
    const html = (body: string): void => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${host}</title></head><body>${body}</body></html>`);
    };
    if (host === PORTAL_HOST && path === '/form') {
      html(`<h1>Trade licence renewal</h1>
        <label for="name">Applicant name</label> <input id="name" name="name">
        <label for="ward">Ward number</label> <input id="ward" name="ward">
        <button id="save" type="button" onclick="document.getElementById('out').textContent = 'Saved: ' + document.getElementById('name').value + ' / ' + document.getElementById('ward').value">Save draft</button>
        <p id="out" role="status"></p>
        <iframe title="Address lookup" src="${this.origin(WIDGET_HOST)}/widget" width="500" height="160"></iframe>`);
      return;
    }
    if (host === WIDGET_HOST && path === '/widget') {
      html(`<label for="pin">PIN code</label> <input id="pin">
        <button type="button" onclick="document.getElementById('found').textContent = 'Found PIN ' + document.getElementById('pin').value">Look up</button>
        <p id="found"></p>`);
      return;
    }
    if (host === PORTAL_HOST && path === '/next') {
      html(`<h1>Second page</h1><p>cookie seen: ${escapeHtml(req.headers.cookie ?? '')}</p>`);
      return;
    }
    if (host === PORTAL_HOST && path === '/links') {
      html(`<h1>Links</h1>
        <a id="off" href="${this.origin(ATTACKER_HOST)}/steal">Off the portal</a>
        <a id="bounce" href="${this.origin()}/bounce">Bounce</a>`);
      return;
    }
    if (host === PORTAL_HOST && path === '/bounce') {
      res.writeHead(302, { location: `${this.origin(ATTACKER_HOST)}/after-redirect` });
      res.end();
      return;
    }
    if (host === PORTAL_HOST && path === '/set-cookie') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'visit=portal-set; Path=/' });
      res.end('<!doctype html><title>set</title><p>cookie set</p>');
      return;
    }
    html(`<h1>${escapeHtml(host)}${escapeHtml(path)}</h1>`);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
