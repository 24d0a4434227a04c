import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleFile } from '../../src/main/console-files';
import { CONSOLE_CSP, CONSOLE_START_URL, consoleNavigationDecision, isConsoleMethod, isConsoleUrl, senderDecision } from '../../src/main/console-policy';
import { ConsoleMethods } from '../../src/shared/console-api';

/** The console window's rules: where its files come from, who may call the API, no navigation. */

describe('isConsoleUrl', () => {
  it('accepts only the console scheme and host', () => {
    expect(isConsoleUrl(CONSOLE_START_URL)).toBe(true);
    expect(isConsoleUrl('portal-desk://console/assets/index-abc.js')).toBe(true);
    expect(isConsoleUrl('portal-desk://other/index.html')).toBe(false);
    expect(isConsoleUrl('portal-desk://user@console/index.html')).toBe(false);
    expect(isConsoleUrl('https://console/index.html')).toBe(false);
    expect(isConsoleUrl('file:///opt/portal-desk/out/renderer/index.html')).toBe(false);
    expect(isConsoleUrl('not a url')).toBe(false);
  });

  it('accepts the dev server only when one is configured', () => {
    expect(isConsoleUrl('http://localhost:5173/')).toBe(false);
    expect(isConsoleUrl('http://localhost:5173/src/main.tsx', { devServerUrl: 'http://localhost:5173' })).toBe(true);
    expect(isConsoleUrl('http://localhost:5174/', { devServerUrl: 'http://localhost:5173' })).toBe(false);
  });
});

describe('senderDecision (ipcMain.handle sender checks)', () => {
  const consoleId = 7;
  const fromConsole = { webContentsId: 7, frameUrl: CONSOLE_START_URL, isMainFrame: true };

  it('allows the console window’s main frame showing the console', () => {
    expect(senderDecision(fromConsole, consoleId)).toEqual({ allow: true });
  });

  it('refuses another webContents (a portal view), whatever it shows', () => {
    expect(senderDecision({ ...fromConsole, webContentsId: 8 }, consoleId)).toMatchObject({ allow: false, reason: 'Only the console window may call the console API' });
  });

  it('refuses a frame inside the console window', () => {
    expect(senderDecision({ ...fromConsole, isMainFrame: false }, consoleId).allow).toBe(false);
  });

  it('refuses the console window when it shows anything but the console', () => {
    expect(senderDecision({ ...fromConsole, frameUrl: 'https://attacker.example/' }, consoleId).allow).toBe(false);
    expect(senderDecision({ ...fromConsole, frameUrl: 'file:///tmp/x.html' }, consoleId).allow).toBe(false);
    expect(senderDecision({ ...fromConsole, frameUrl: undefined }, consoleId).allow).toBe(false);
  });

  it('refuses everything before the console window exists', () => {
    expect(senderDecision(fromConsole, undefined).allow).toBe(false);
  });
});

describe('isConsoleMethod (unknown methods refused before anything else)', () => {
  it('knows every method of the contract', () => {
    for (const method of Object.keys(ConsoleMethods)) expect(isConsoleMethod(method), method).toBe(true);
  });

  it('refuses everything else, prototype names included', () => {
    for (const method of ['unknown', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '', 'listcases']) {
      expect(isConsoleMethod(method), method).toBe(false);
    }
    expect(isConsoleMethod(1)).toBe(false);
    expect(isConsoleMethod(null)).toBe(false);
    expect(isConsoleMethod({ toString: () => 'listCases' })).toBe(false);
  });
});

describe('the console window never navigates', () => {
  it('refuses any navigation', () => {
    expect(consoleNavigationDecision('https://shops.portal.example/').allow).toBe(false);
    expect(consoleNavigationDecision('portal-desk://console/index.html').allow).toBe(false);
  });
});

describe('CONSOLE_CSP', () => {
  it('is strict: own scripts only, nothing inline or evaluated, no frames, plugins, workers or <base>', () => {
    const directives = new Map(CONSOLE_CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    expect(CONSOLE_CSP).not.toMatch(/unsafe-eval|unsafe-inline|\*/);
  });
});

describe('consoleFile (the protocol handler’s file choice)', () => {
  const root = resolve('/opt/portal-desk/out/renderer');

  it('serves the index and assets with the CSP header', () => {
    const index = consoleFile('portal-desk://console/', root);
    expect(index).toMatchObject({ ok: true, path: join(root, 'index.html') });
    expect(index.ok && index.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(index.ok && index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(consoleFile('portal-desk://console/assets/index-BOfA1Z1V.js?v=1', root)).toMatchObject({ ok: true, path: join(root, 'assets/index-BOfA1Z1V.js') });
  });

  it('refuses paths outside the renderer folder, however spelled', () => {
    for (const url of [
      'portal-desk://console/../package.json',
      'portal-desk://console/%2e%2e/package.json',
      'portal-desk://console/assets/%2e%2e/%2e%2e/main/index.js',
      'portal-desk://console/..%2f..%2fpackage.json',
      'portal-desk://console/%5c..%5cpackage.json',
      'portal-desk://console/a%00.html',
    ]) {
      const answer = consoleFile(url, root);
      if (answer.ok) expect(answer.path.startsWith(`${root}/`), url).toBe(true);
      else expect([400, 403, 404], url).toContain(answer.status);
    }
    expect(consoleFile('portal-desk://console/..%2f..%2fpackage.json', root).ok).toBe(false);
  });

  it('refuses other hosts, other schemes and unknown file types', () => {
    expect(consoleFile('portal-desk://other/index.html', root)).toMatchObject({ ok: false, status: 403 });
    expect(consoleFile('https://console/index.html', root)).toMatchObject({ ok: false, status: 403 });
    expect(consoleFile('portal-desk://console/secret.sqlite', root)).toMatchObject({ ok: false, status: 404 });
    expect(consoleFile('portal-desk://console/%E0%A4%A', root)).toMatchObject({ ok: false, status: 400 });
  });
});
