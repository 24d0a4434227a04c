import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConsoleService, type ConsoleServiceOptions } from '../../src/console/console-service';
import type { KeySource } from '../../src/vault';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from '../../src/agent/browser/chromium';
import { LabHandle } from '../../lab/demo/lab-portals';

export const REPO = resolve(__dirname, '../..');
export const CASES_DIR = join(REPO, 'resources/cases');

export function tempDir(prefix = 'pd-console-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A vault key held in memory: tests never touch a key file or the OS keyring. */
export function memoryKey(): KeySource {
  const key = randomBytes(32);
  return { kind: 'memory', description: 'test key', key: async () => key };
}

/**
 * A console service on a fresh store and vault; the environment carries no API key. Its demo
 * portals are the portal lab (as the CLI's console has them), stopped with the service, unless
 * `options` names its own `demo` (undefined: none, as in the production shell).
 */
export async function openTestService(options: Partial<ConsoleServiceOptions> = {}): Promise<{ service: ConsoleService; dir: string }> {
  const dir = tempDir();
  const ownDemo = 'demo' in options ? undefined : new LabHandle();
  const service = await ConsoleService.open({
    dbPath: join(dir, 'runs.sqlite'),
    casesDir: CASES_DIR,
    vaultDir: join(dir, 'vault'),
    env: { PORTAL_DESK_HOME: dir, PATH: process.env.PATH },
    keySource: memoryKey(),
    clerkName: 'test-clerk',
    ...(ownDemo ? { demo: ownDemo } : {}),
    ...options,
  });
  if (ownDemo) {
    const close = service.close.bind(service);
    service.close = async () => {
      await close();
      await ownDemo.stop();
    };
  }
  return { service, dir };
}

/**
 * The console in Chromium, as a clerk opens it: a fresh browser, a page of the given size at the
 * console's address, and every script error and console error the page shows collected in
 * `problems` (each E2E test ends by asserting it is empty).
 */
export async function openConsolePage(url: string, context: BrowserContextOptions, problems: string[] = []): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await (await browser.newContext(context)).newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  await page.goto(url);
  return { browser, page };
}
