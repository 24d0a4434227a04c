import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../../../../src/agent/browser/chromium';
import { contextOptionsFor, installWatchdogs, type GuardEvent } from '../../../../src/agent/guard/browser';
import { PortalServer } from './portal-server';

/**
 * Permissions in real Chromium. Browsers refuse most permissions to plain-http pages outright,
 * which would make this test pass for the wrong reason, so Chromium is told to treat the lab
 * origin as secure (as an https portal is): then only the watchdog stands between the page
 * and a prompt.
 */

let browser: Browser;
const server = new PortalServer();

beforeAll(async () => {
  await server.start();
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_FLAGS, '--host-resolver-rules=MAP * 127.0.0.1', `--unsafely-treat-insecure-origin-as-secure=${server.origin()}`],
  });
});
afterAll(async () => {
  await browser?.close();
  await server.stop();
});

const ASK = async () => {
  const out: Record<string, string> = { secure: String(isSecureContext) };
  for (const name of ['geolocation', 'notifications', 'camera', 'microphone', 'clipboard-read', 'clipboard-write']) {
    out[name] = (await navigator.permissions.query({ name: name as PermissionName })).state;
  }
  const within = <T,>(p: Promise<T>) => Promise.race([p, new Promise<string>((r) => setTimeout(() => r('no answer in 5 s'), 5000))]);
  out.notificationRequest = String(await within(Notification.requestPermission()));
  out.geolocation_request = String(
    await within(new Promise((r) => navigator.geolocation.getCurrentPosition(() => r('position'), (e) => r(`error ${e.code}`), { timeout: 4000 }))),
  );
  out.camera_request = String(await within(navigator.mediaDevices.getUserMedia({ video: true }).then(() => 'stream', (e: Error) => e.name)));
  out.clipboard_request = String(await within(navigator.clipboard.readText().then(() => 'text', (e: Error) => e.name)));
  return out;
};

describe('permissions', () => {
  it('baseline: a bare context leaves them at "prompt", and clearing permissions puts them back there', async () => {
    const bare = await browser.newContext();
    const configured = await browser.newContext(contextOptionsFor(server.profile()));
    try {
      const state = async (context: typeof bare) => {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`${server.origin()}/baseline`);
        return page.evaluate(() => navigator.permissions.query({ name: 'geolocation' }).then((s) => s.state));
      };
      expect(await state(bare)).toBe('prompt');
      expect(await state(configured)).toBe('denied');
      await configured.clearPermissions();
      expect(await state(configured)).toBe('prompt');
    } finally {
      await bare.close();
      await configured.close();
    }
  });

  it('with the watchdog every permission reads "denied", every request fails without a prompt, and each request is reported', async () => {
    // A bare context, so that what is denied is the watchdog's doing, not the context options'.
    const context = await browser.newContext();
    const events: GuardEvent[] = [];
    try {
      const page = await context.newPage();
      await installWatchdogs(context, server.profile(), (e) => events.push(e), { withoutEgressLock: true });
      await page.goto(`${server.origin()}/ask`);
      const answers = await page.evaluate(ASK);
      expect(answers).toEqual({
        secure: 'true',
        geolocation: 'denied',
        notifications: 'denied',
        camera: 'denied',
        microphone: 'denied',
        'clipboard-read': 'denied',
        'clipboard-write': 'denied',
        notificationRequest: 'denied',
        geolocation_request: 'error 1',
        // This machine has no camera: Chromium answers NotFoundError before it looks at the permission.
        camera_request: expect.stringMatching(/^Not(Allowed|Found)Error$/),
        clipboard_request: 'NotAllowedError',
      });
      await expect.poll(() => events.filter((e) => e.type === 'permission_denied').map((e) => e.detail.match(/request for (.+?);/)?.[1]), { timeout: 20_000 }).toEqual([
        'notifications',
        'geolocation',
        'camera or microphone',
        'clipboard',
      ]);
    } finally {
      await context.close();
    }
  });
});
