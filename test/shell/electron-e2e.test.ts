import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleMethods } from '../../src/shared/console-api';

/**
 * The Electron app end to end, where the Electron binary exists. It is found WITHOUT requiring
 * 'electron' (from Electron 42 on, that require tries to download the binary): the package's
 * `path.txt` names the executable under its `dist/`. Where it is missing (this machine: the
 * binary cannot be downloaded) every test here is skipped with one loud line; the browser
 * console's E2E covers the UI, and test/shell/cdp-transport.test.ts covers the engine's path
 * to a page through a debugger-shaped transport.
 */

const ROOT = resolve(__dirname, '../..');

function electronBinary(): { path?: string; reason?: string } {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(__filename).resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return { reason: `Electron binary not installed (no ${pathFile}; ELECTRON_SKIP_BINARY_DOWNLOAD or no network at install)` };
  const executable = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(executable)) return { reason: `Electron binary not installed (${executable} is missing)` };
  if (!existsSync(join(ROOT, 'out/main/index.js'))) return { reason: 'the app is not built (run `npm run build` first)' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { reason: 'no display (run under xvfb-run)' };
  return { path: executable };
}

const binary = electronBinary();
if (!binary.path) console.warn(`SKIPPED: ${binary.reason}; the browser console E2E covers the UI`);
const suite = binary.path ? describe : describe.skip;

suite('the Electron app', () => {
  let app: ElectronApplication;
  let page: Page;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'portal-desk-e2e-'));
    app = await _electron.launch({
      executablePath: binary.path!,
      args: [ROOT],
      cwd: ROOT,
      env: { ...process.env, PORTAL_DESK_HOME: home, PORTAL_DESK_CASES: join(ROOT, 'resources/cases'), ELECTRON_ENABLE_LOGGING: '1' },
      timeout: 60_000,
    });
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('shows the console from its own scheme, titled Portal Desk', async () => {
    expect(page.url()).toMatch(/^portal-desk:\/\/console\//);
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().map((w) => w.getTitle()))).toContain('Portal Desk');
  });

  it('exposes exactly the console API plus onEvent, and no Node or Electron', async () => {
    const keys = await page.evaluate(() => Object.keys((window as unknown as { portalDesk: object }).portalDesk).sort());
    expect(keys).toEqual([...Object.keys(ConsoleMethods), 'onEvent'].sort());
    expect(await page.evaluate(() => [typeof (globalThis as { require?: unknown }).require, typeof (globalThis as { process?: unknown }).process])).toEqual(['undefined', 'undefined']);
  });

  it('answers console calls over IPC and refuses bad parameters with the contract’s message', async () => {
    const cases = await page.evaluate(() => (window as unknown as { portalDesk: { listCases(p: object): Promise<{ file: string }[]> } }).portalDesk.listCases({}));
    expect(cases.length).toBeGreaterThan(0);
    const error = await page.evaluate(() =>
      (window as unknown as { portalDesk: { getScreenshot(p: object): Promise<unknown> } }).portalDesk.getScreenshot({ hash: 'nope' }).then(
        () => 'accepted',
        (e: Error) => e.message,
      ),
    );
    expect(error).toMatch(/Bad parameters for getScreenshot/);
  });

  it('keeps the console window where it is: no navigation, no pop-ups', async () => {
    const before = page.url();
    await page.evaluate(() => {
      window.location.href = 'https://attacker.example/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe(before);
    expect(await page.evaluate(() => window.open('https://attacker.example/') === null)).toBe(true);
  });

  it('sends the console CSP with its files', async () => {
    const blocked = await page.evaluate(async () => {
      try {
        await fetch('https://attacker.example/');
        return 'fetched';
      } catch {
        return 'blocked';
      }
    });
    expect(blocked).toBe('blocked');
  });
});

describe('the preload bundle', () => {
  const bundle = join(ROOT, 'out/preload/index.js');
  const built = existsSync(bundle);
  if (!built) console.warn('SKIPPED: out/preload/index.js is not built (run `npm run build`); the preload bundle checks did not run');
  (built ? it : it.skip)('is CommonJS and requires nothing but electron (a sandboxed preload can load nothing else)', () => {
    const code = readFileSync(bundle, 'utf8');
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    const required = [...code.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
    expect(code).toContain('exposeInMainWorld("portalDesk"');
  });
});
