import { describe, expect, it } from 'vitest';
import type { HostPolicy } from '../../src/shared/allowed-hosts';
import { decideForAny, downloadDecision, navigationDecision, permissionDecision, popupDecision, requestDecision } from '../../src/main/portal-policy';

/** The portal view's session policy, decided without Electron. */

const shops: HostPolicy = { name: 'Shops portal', allowedHosts: ['shops.portal.example', 'pay.portal.example:8443'], allowHttp: false };
const lab: HostPolicy = { name: 'Lab portal', allowedHosts: ['tax.portal.example:41234'], allowHttp: true };
const idn: HostPolicy = { name: 'Bücher portal', allowedHosts: ['xn--bcher-kva.example'], allowHttp: false };

const allowed = (url: string, policy = shops, isMainFrame = true) => navigationDecision(url, policy, { isMainFrame }).allow;

describe('navigationDecision (will-navigate, will-frame-navigate, will-redirect)', () => {
  it('allows the portal’s own addresses', () => {
    expect(allowed('https://shops.portal.example/')).toBe(true);
    expect(allowed('https://shops.portal.example/renew?step=2#top')).toBe(true);
    expect(allowed('https://SHOPS.Portal.Example/renew')).toBe(true);
    expect(allowed('https://pay.portal.example:8443/checkout')).toBe(true);
    expect(allowed('http://tax.portal.example:41234/return', lab)).toBe(true);
  });

  it('refuses hosts off the list, with a reason that names the address', () => {
    const decision = navigationDecision('https://attacker.example/steal?d=1', shops);
    expect(decision).toEqual({ allow: false, reason: expect.stringContaining('attacker.example') });
    expect(allowed('https://portal.example/')).toBe(false);
    expect(allowed('https://www.shops.portal.example/')).toBe(false);
  });

  it('refuses user names in the address (user@host), either way round', () => {
    expect(allowed('https://shops.portal.example@attacker.example/')).toBe(false);
    expect(allowed('https://clerk:secret@shops.portal.example/')).toBe(false);
    expect(navigationDecision('https://clerk@shops.portal.example/', shops)).toMatchObject({ allow: false, reason: expect.stringContaining('user name') });
  });

  it('refuses look-alike suffixes and prefixes (exact host comparison only)', () => {
    expect(allowed('https://shops.portal.example.attacker.example/')).toBe(false);
    expect(allowed('https://evilshops.portal.example/')).toBe(false);
    expect(allowed('https://shops.portal.example./')).toBe(false);
    expect(allowed('https://shops-portal.example/')).toBe(false);
  });

  it('compares hosts after IDNA normalisation: a look-alike in Unicode is refused, the listed name in Unicode is allowed', () => {
    expect(allowed('https://shöps.portal.example/')).toBe(false);
    expect(allowed('https://xn--shps-qoa.portal.example/')).toBe(false);
    expect(allowed('https://bücher.example/', idn)).toBe(true);
    expect(allowed('https://xn--bcher-kva.example/', idn)).toBe(true);
    expect(allowed('https://bucher.example/', idn)).toBe(false);
  });

  it('refuses another port of an allowed host', () => {
    expect(allowed('https://shops.portal.example:8443/')).toBe(false);
    expect(allowed('https://pay.portal.example/')).toBe(false);
    expect(allowed('http://tax.portal.example:41235/', lab)).toBe(false);
    expect(allowed('http://tax.portal.example/', lab)).toBe(false);
  });

  it('refuses plain http unless the portal allows it, and bare IP numbers', () => {
    expect(allowed('http://shops.portal.example/')).toBe(false);
    expect(allowed('https://127.0.0.1/')).toBe(false);
    expect(allowed('https://[::1]/')).toBe(false);
  });

  it('refuses javascript:, data:, file:, blob: and other schemes', () => {
    for (const url of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'blob:https://shops.portal.example/6f1c2a9e-0000-4000-8000-000000000000',
      'ftp://shops.portal.example/',
      'chrome://settings',
      'devtools://devtools/bundled/inspector.html',
      'portal-desk://console/index.html',
    ]) {
      expect(allowed(url), url).toBe(false);
      expect(allowed(url, shops, false), `${url} (frame)`).toBe(false);
    }
  });

  it('lets a frame be blank or inline, never the main frame', () => {
    expect(allowed('about:blank', shops, false)).toBe(true);
    expect(allowed('about:srcdoc', shops, false)).toBe(true);
    expect(allowed('about:blank', shops, true)).toBe(false);
    expect(allowed('about:srcdoc', shops, true)).toBe(false);
  });

  it('judges a frame’s own navigation by the same list', () => {
    expect(allowed('https://pay.portal.example:8443/widget', shops, false)).toBe(true);
    const decision = navigationDecision('https://tracker.example/frame', shops, { isMainFrame: false });
    expect(decision).toMatchObject({ allow: false, reason: expect.stringMatching(/^A frame in the page/) });
  });
});

describe('requestDecision (webRequest.onBeforeRequest)', () => {
  const request = (url: string, resourceType: string, policy = shops) => requestDecision({ url, resourceType }, policy).allow;

  it('allows documents and subresources from the portal', () => {
    for (const type of ['mainFrame', 'subFrame', 'script', 'stylesheet', 'image', 'font', 'xhr', 'media', 'ping', 'other']) {
      expect(request('https://shops.portal.example/a', type), type).toBe(true);
    }
  });

  it('cancels off-list main frames, subframes and every other kind of request', () => {
    for (const type of ['mainFrame', 'subFrame', 'script', 'stylesheet', 'image', 'font', 'object', 'xhr', 'ping', 'cspReport', 'media', 'webSocket', 'other']) {
      expect(request('https://attacker.example/x', type), type).toBe(false);
    }
    expect(requestDecision({ url: 'https://attacker.example/x', resourceType: 'subFrame' }, shops)).toMatchObject({ reason: expect.stringMatching(/^Cancelled a frame/) });
    expect(requestDecision({ url: 'https://cdn.example/lib.js', resourceType: 'script' }, shops)).toMatchObject({ reason: expect.stringMatching(/^Cancelled a script request/) });
  });

  it('cancels requests with a user name, to another port, or over http', () => {
    expect(request('https://u@shops.portal.example/', 'xhr')).toBe(false);
    expect(request('https://shops.portal.example:444/', 'image')).toBe(false);
    expect(request('http://shops.portal.example/', 'mainFrame')).toBe(false);
  });

  it('judges WebSockets as the page address they upgrade from', () => {
    expect(request('wss://shops.portal.example/live', 'webSocket')).toBe(true);
    expect(request('ws://shops.portal.example/live', 'webSocket')).toBe(false);
    expect(request('ws://tax.portal.example:41234/live', 'webSocket', lab)).toBe(true);
    expect(request('wss://attacker.example/live', 'webSocket')).toBe(false);
  });

  it('lets data: and blob: subresources through (they stay on the machine), never as documents', () => {
    expect(request('data:image/png;base64,iVBORw0KGgo=', 'image')).toBe(true);
    expect(request('blob:https://shops.portal.example/0000', 'xhr')).toBe(true);
    expect(request('data:text/html,hi', 'mainFrame')).toBe(false);
    expect(request('data:text/html,hi', 'subFrame')).toBe(false);
    expect(request('file:///etc/passwd', 'xhr')).toBe(false);
  });
});

describe('pop-ups, downloads and permissions', () => {
  it('refuses every pop-up', () => {
    expect(popupDecision('https://shops.portal.example/print')).toMatchObject({ allow: false, reason: expect.stringContaining('pop-up') });
    expect(popupDecision('about:blank')).toEqual({ allow: false, reason: 'Refused a pop-up window; Portal Desk works in one view' });
    expect(popupDecision('')).toMatchObject({ allow: false });
  });

  it('refuses every download, naming the file and the host', () => {
    const decision = downloadDecision('https://shops.portal.example/receipt.pdf', 'receipt.pdf');
    expect(decision).toEqual({ allow: false, reason: 'Refused a download of “receipt.pdf” from shops.portal.example; downloads are off in Portal Desk' });
    expect(downloadDecision()).toMatchObject({ allow: false, reason: expect.stringContaining('a file') });
  });

  it('denies every permission, to portals and the console alike', () => {
    const permissions = ['geolocation', 'notifications', 'media', 'clipboard-read', 'clipboard-sanitized-write', 'display-capture', 'midi', 'midiSysex', 'pointerLock', 'keyboardLock', 'fullscreen', 'openExternal', 'fileSystem', 'hid', 'serial', 'usb', 'storage-access', 'window-management', 'idle-detection', 'unknown'];
    for (const permission of permissions) {
      expect(permissionDecision(permission, 'https://shops.portal.example/').allow, permission).toBe(false);
    }
    expect(permissionDecision('geolocation', 'https://shops.portal.example/x').reason).toBe('Denied geolocation to shops.portal.example; Portal Desk grants no browser permissions');
  });
});

describe('decideForAny (several runs in one client’s session)', () => {
  it('allows what any run allows, refuses with the first reason otherwise, and refuses everything with no run', () => {
    const url = 'http://tax.portal.example:41234/';
    expect(decideForAny([shops, lab], (p) => navigationDecision(url, p)).allow).toBe(true);
    expect(decideForAny([shops], (p) => navigationDecision(url, p))).toMatchObject({ allow: false, reason: expect.stringContaining('tax.portal.example') });
    expect(decideForAny([], (p) => navigationDecision('https://shops.portal.example/', p))).toEqual({ allow: false, reason: 'No run is using this portal view, so it may load nothing' });
  });
});
