import type { IncomingMessage, ServerResponse } from 'node:http';

/** Request and response plumbing over node:http: bodies, cookies, pages, redirects. */

const MAX_BODY_BYTES = 1_000_000;

export interface LabRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly hostHeader: string;
  readonly cookies: Readonly<Record<string, string>>;
  readonly headers: IncomingMessage['headers'];
  /** Raw body (empty for GET). */
  readonly body: string;
}

export async function readRequest(req: IncomingMessage): Promise<LabRequest> {
  const url = new URL(req.url ?? '/', 'http://lab.invalid');
  const body = await readBody(req);
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    query: url.searchParams,
    hostHeader: req.headers.host ?? '',
    cookies: parseCookies(req.headers.cookie),
    headers: req.headers,
    body,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      out[name] = part.slice(eq + 1).trim();
    }
  }
  return out;
}

/** A url-encoded form body. */
export function formOf(request: LabRequest): URLSearchParams {
  return new URLSearchParams(request.body);
}

export function setCookie(res: ServerResponse, name: string, value: string): void {
  const cookie = `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax`;
  const existing = res.getHeader('set-cookie');
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  res.setHeader('set-cookie', [...list, cookie]);
}

export function sendHtml(res: ServerResponse, status: number, document: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(document);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value, null, 2));
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

/** 303 See Other: after a POST the browser GETs the new location (post/redirect/get). */
export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

/** A local path safe to redirect to (no scheme, no host), or the fallback. */
export function localPath(candidate: string | null | undefined, fallback: string): string {
  if (!candidate || !candidate.startsWith('/') || candidate.startsWith('//') || candidate.includes('\\')) return fallback;
  return candidate;
}
