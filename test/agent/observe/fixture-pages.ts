import { afterAll, afterEach, beforeAll } from 'vitest';
import { FixtureBrowser, startFixtureServer, type FixtureServer } from './fixture-server';

/**
 * The page tests' usual set-up, registered on the calling test file: one Chromium for the file, a
 * fresh context for each test (closed after it), and with `useFixturePages` the fixture server of
 * test/fixtures/pages.
 */
export function useFixtureBrowser(): FixtureBrowser {
  const browser = new FixtureBrowser();
  beforeAll(() => browser.start());
  afterEach(() => browser.closeContexts());
  afterAll(() => browser.stop());
  return browser;
}

/** The fixture pages' server for the file (`server.url(...)` inside a test) and a browser for them. */
export function useFixturePages(): { server: FixtureServer; browser: FixtureBrowser } {
  let started: FixtureServer | undefined;
  beforeAll(async () => {
    started = await startFixtureServer();
  });
  afterAll(() => started?.close());
  const current = (): FixtureServer => {
    if (!started) throw new Error('the fixture server starts in beforeAll; use it inside a test');
    return started;
  };
  const server: FixtureServer = {
    get port() {
      return current().port;
    },
    url: (page, host) => current().url(page, host),
    close: () => current().close(),
  };
  return { server, browser: useFixtureBrowser() };
}
