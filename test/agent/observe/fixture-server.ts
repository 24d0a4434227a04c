import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';

/**
 * Serves test/fixtures/pages on 127.0.0.1 for any host name; Chromium maps every host to the
 * loopback (`MAP * 127.0.0.1`), so a.test and b.test are two origins of one server.
 * Any method answers with the file named by the path (a POSTed form lands on its action page);
 * `?slow` delays the answer by 400 ms.
 */
const PAGES = join(__dirname, '..', '..', 'fixtures', 'pages');

export interface FixtureServer {
  port: number;
  /** URL of a fixture page on a host, e.g. url('tidy-form.html', 'a.test'). */
  url(page: string, host?: string): string;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(PAGES, path === '/' ? 'index.html' : path));
    if (!file.startsWith(PAGES)) {
      res.writeHead(403).end();
      return;
    }
    req.resume();
    // ?slow answers after 400 ms (a slow XHR for the settle tests).
    const delay = new URL(req.url ?? '/', 'http://x').searchParams.has('slow') ? 400 : 0;
    const read = new Promise<Buffer>((resolve, reject) => setTimeout(() => readFile(file).then(resolve, reject), delay));
    read.then(
      (body) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: (page, host = 'a.test') => `http://${host}:${port}/${page}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One Chromium per test file, a fresh context per test. */
export class FixtureBrowser {
  private instance: Browser | undefined;
  private contexts: BrowserContext[] = [];

  async start(): Promise<void> {
    this.instance = await launchChromium({ hostResolverRules: 'MAP * 127.0.0.1' });
  }

  browser(): Browser {
    if (!this.instance) throw new Error('FixtureBrowser.start() first');
    return this.instance;
  }

  async page(): Promise<Page> {
    const context = await this.browser().newContext();
    this.contexts.push(context);
    return context.newPage();
  }

  async closeContexts(): Promise<void> {
    await Promise.all(this.contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  }

  async stop(): Promise<void> {
    await this.closeContexts();
    await this.instance?.close();
  }
}
