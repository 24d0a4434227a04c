import { request } from 'node:http';

/** A tiny HTTP client for the lab: sets the Host header, keeps cookies, never follows redirects. */

export interface Reply {
  status: number;
  location: string | undefined;
  body: string;
  ms: number;
}

export class LabClient {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  get(path: string): Promise<Reply> {
    return this.send('GET', path, '');
  }

  /** Posts a url-encoded form. */
  post(path: string, form: Record<string, string | boolean | undefined>): Promise<Reply> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) {
      if (v === undefined || v === false) continue;
      body.append(k, v === true ? 'yes' : v);
    }
    return this.send('POST', path, body.toString(), 'application/x-www-form-urlencoded');
  }

  postJson(path: string, value: unknown): Promise<Reply> {
    return this.send('POST', path, JSON.stringify(value), 'application/json');
  }

  send(method: string, path: string, body: string, contentType?: string): Promise<Reply> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          headers: {
            ...this.headers,
            host: `${this.host}:${this.port}`,
            cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(contentType ? { 'content-type': contentType } : {}),
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (res) => {
          for (const c of res.headers['set-cookie'] ?? []) {
            const [pair] = c.split(';');
            const eq = pair!.indexOf('=');
            this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text, ms: Date.now() - started }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** GETs a path and follows redirects on the same host. */
  async follow(path: string, max = 10): Promise<Reply & { path: string }> {
    let current = path;
    for (let i = 0; i < max; i++) {
      const reply = await this.get(current);
      if (reply.status !== 303 && reply.status !== 302) return { ...reply, path: current };
      current = reply.location!;
    }
    throw new Error(`too many redirects from ${path}`);
  }
}
