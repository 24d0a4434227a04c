import type { BrowserContext, Page } from 'playwright-core';
import { safeSink, type GuardEventSink } from './guard-event';

const BINDING = '__portalDeskPermissionAsked';
const MAX_REPORTS_PER_PAGE = 20;

/**
 * A page script that reports each permission request through the binding, then lets the
 * (denied) request run. A string, not a function, so no compiler helper leaks into the page.
 */
const WATCH_REQUESTS = `(() => {
  const binding = ${JSON.stringify(BINDING)};
  const report = (name) => { try { const f = globalThis[binding]; if (typeof f === 'function') f(name); } catch (e) {} };
  const wrap = (owner, key, name) => {
    if (!owner) return;
    const original = owner[key];
    if (typeof original !== 'function') return;
    try {
      Object.defineProperty(owner, key, { configurable: true, writable: true, value: function (...args) { report(name); return original.apply(this, args); } });
    } catch (e) {}
  };
  wrap(globalThis.Notification, 'requestPermission', 'notifications');
  wrap(navigator.geolocation, 'getCurrentPosition', 'geolocation');
  wrap(navigator.geolocation, 'watchPosition', 'geolocation');
  wrap(navigator.mediaDevices, 'getUserMedia', 'camera or microphone');
  wrap(navigator.mediaDevices, 'getDisplayMedia', 'screen capture');
  wrap(navigator.clipboard, 'readText', 'clipboard');
  wrap(navigator.clipboard, 'read', 'clipboard');
  wrap(navigator.clipboard, 'writeText', 'clipboard');
  wrap(navigator.clipboard, 'write', 'clipboard');
})();`;

/**
 * Every browser permission denied for every site in the context. In Chromium, granting a list
 * of permissions rejects all others, so granting the empty list denies all: the page's
 * `navigator.permissions.query` answers "denied" and requests fail at once without a prompt, in
 * headless and headed Chromium alike. (Clearing permissions, `context.clearPermissions()`, is
 * not a denial: it puts them back to "prompt", where a headed browser would ask the clerk.)
 */
export async function denyAllPermissions(context: BrowserContext): Promise<void> {
  await context.clearPermissions();
  await context.grantPermissions([]);
}

/**
 * Reports each permission a page asks for (geolocation, notifications, camera, microphone,
 * screen capture, clipboard) as `permission_denied`. Best effort: the report comes from a
 * script in the page, which a hostile page can sidestep; the denial itself is the browser's.
 */
export async function installPermissionReports(context: BrowserContext, report: GuardEventSink): Promise<void> {
  const emit = safeSink(report);
  const counts = new WeakMap<Page, number>();
  await context.exposeBinding(BINDING, ({ page, frame }, name: unknown) => {
    const count = (counts.get(page) ?? 0) + 1;
    counts.set(page, count);
    if (count > MAX_REPORTS_PER_PAGE || typeof name !== 'string') return;
    emit({ type: 'permission_denied', url: frame.url(), detail: `Denied the page's request for ${name.slice(0, 40)}; Portal Desk grants no browser permissions` });
  });
  await context.addInitScript({ content: WATCH_REQUESTS });
}
