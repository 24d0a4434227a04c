import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { PortalProfile } from '../../src/shared/portal-profile';

/**
 * The attack suites' own portals, written apart from the lab so that the gate meets pages and
 * wording it was not built around. Each serves one realistic host name on a loopback port
 * (Chromium maps the name to 127.0.0.1 with `hostResolverRules`); a portal says how it answers
 * (`handle`), and this holds the server.
 */
export abstract class PortalSite {
  protected server!: Server;
  /** The portal's one host name. */
  protected abstract readonly host: string;

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.listening(this.server);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return this;
  }

  /** Before the server listens: a portal that answers more than requests (a socket's upgrade) adds it here. */
  protected listening(_server: Server): void {}

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }

  get hostResolverRules(): string {
    return `MAP ${this.host} 127.0.0.1`;
  }

  /** The portal's profile: its start page and its one host, over plain http on loopback, with what the portal adds. */
  protected profileWith(fields: Omit<z.input<typeof PortalProfile>, 'startUrl' | 'allowedHosts' | 'allowHttp'>): PortalProfile {
    return PortalProfile.parse({ startUrl: `${this.origin}/`, allowedHosts: [`${this.host}:${this.port}`], allowHttp: true, ...fields });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A request's body as text ('' when the request breaks off). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

/** A whole HTML page, 200, with `main` as its main element (and `head` added to its head). */
export function htmlPage(res: ServerResponse, title: string, main: string, head = ''): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><main>${main}</main></body></html>`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
}

export function redirect(res: ServerResponse, status: number, to: string): void {
  res.writeHead(status, { location: to, 'content-length': '0' }).end();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
