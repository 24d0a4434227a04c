import { isAllowedUrl, shorten, type HostPolicy } from '../shared/allowed-hosts';

/**
 * What the portal view's session allows, as pure decisions (no Electron import, tested under
 * plain Node). `session-hardening.ts` wires them to Electron's events: every navigation, frame
 * navigation, redirect, request, pop-up, download and permission of a portal view is decided here.
 *
 * This is the shell's layer of the guard, under the engine's own (the action guard and the
 * browser watchdogs): it holds even for what the page does on its own, and for anything the
 * engine's CDP-level locks might miss. Every address check is `isAllowedUrl`, the engine's one
 * definition of the portal's address space.
 */

export type Refusal = { allow: false; reason: string };
export type Decision = { allow: true } | Refusal;

const ALLOW: Decision = { allow: true };
const deny = (reason: string): Refusal => ({ allow: false, reason });

/** Documents a frame may show without a request: an empty frame, or an inline (srcdoc) one. */
const LOCAL_FRAME_DOCUMENTS = new Set(['about:blank', 'about:srcdoc']);

interface NavigationContext {
  /** false for an iframe's navigation (`will-frame-navigate` on a subframe). Default true. */
  isMainFrame?: boolean;
}

/**
 * `will-navigate`, `will-frame-navigate` and `will-redirect`: the page may only go to the
 * portal's addresses. An iframe may also be blank or inline (no request leaves the machine);
 * the main frame may not (a page that blanks itself is leaving the portal).
 * `javascript:`, `data:`, `file:`, `blob:` and every other scheme are refused by `isAllowedUrl`.
 */
export function navigationDecision(url: string, policy: HostPolicy, context: NavigationContext = {}): Decision {
  const isMainFrame = context.isMainFrame ?? true;
  if (!isMainFrame && LOCAL_FRAME_DOCUMENTS.has(url)) return ALLOW;
  const check = isAllowedUrl(url, policy);
  if (check.ok) return ALLOW;
  return deny(`${isMainFrame ? 'The page' : 'A frame in the page'} tried to go to “${shorten(url, 80)}”: ${check.reason}`);
}

/** The part of Electron's `OnBeforeRequestListenerDetails` the request decision reads. */
interface RequestDetails {
  url: string;
  /** Electron's resource type: mainFrame, subFrame, stylesheet, script, image, font, object, xhr, ping, cspReport, media, webSocket, other. */
  resourceType: string;
}

/** Subresource schemes that never leave the machine (the page's own data). */
const LOCAL_SUBRESOURCE_SCHEMES = new Set(['data:', 'blob:']);

/**
 * `webRequest.onBeforeRequest`: every request of the portal's session, documents (main frame
 * and frames) and subresources alike, goes only to the portal's addresses; an image or a fetch
 * to another host carries data out as surely as a page does. WebSockets are judged as the page
 * address they upgrade from (wss → https, ws → http). Data and blob subresources stay local.
 */
export function requestDecision(details: RequestDetails, policy: HostPolicy): Decision {
  const document = details.resourceType === 'mainFrame' || details.resourceType === 'subFrame';
  const scheme = schemeOf(details.url);
  if (!document && scheme && LOCAL_SUBRESOURCE_SCHEMES.has(scheme)) return ALLOW;
  const url = details.resourceType === 'webSocket' || scheme === 'ws:' || scheme === 'wss:' ? socketAsPage(details.url) : details.url;
  const check = isAllowedUrl(url, policy);
  if (check.ok) return ALLOW;
  const what = details.resourceType === 'mainFrame' ? 'the page' : details.resourceType === 'subFrame' ? 'a frame' : `a ${details.resourceType} request`;
  return deny(`Cancelled ${what} to “${shorten(details.url, 80)}”: ${check.reason}`);
}

/** `setWindowOpenHandler`: Portal Desk works in one view; `window.open`, `target=_blank` and form targets are refused. */
export function popupDecision(url: string): Refusal {
  return deny(`Refused a pop-up window${url && url !== 'about:blank' ? ` for “${shorten(url, 80)}”` : ''}; Portal Desk works in one view`);
}

/** `will-download`: nothing a portal offers is saved by the shell. */
export function downloadDecision(url = '', fileName = ''): Refusal {
  const what = fileName ? `“${shorten(fileName, 60)}”` : 'a file';
  return deny(`Refused a download of ${what}${url ? ` from ${hostOf(url)}` : ''}; downloads are off in Portal Desk`);
}

/**
 * Permission request and check handlers: no browser permission is ever granted, to a portal
 * or to the console window (camera, microphone, location, notifications, clipboard reads,
 * pointer lock, fullscreen, MIDI, HID, serial, USB, file system, opening external apps …).
 */
export function permissionDecision(permission: string, origin = ''): Refusal {
  return deny(`Denied ${permission || 'a permission'}${origin ? ` to ${hostOf(origin)}` : ''}; Portal Desk grants no browser permissions`);
}

/**
 * The decision when several runs share one client's session (two portals of one client at
 * once): allowed when any of them allows it. No run at all: refused.
 */
export function decideForAny(policies: readonly HostPolicy[], decide: (policy: HostPolicy) => Decision): Decision {
  let first: Decision | undefined;
  for (const policy of policies) {
    const decision = decide(policy);
    if (decision.allow) return decision;
    first ??= decision;
  }
  return first ?? deny('No run is using this portal view, so it may load nothing');
}

function schemeOf(url: string): string | undefined {
  const match = /^([a-z][a-z0-9+.-]*:)/i.exec(url);
  return match?.[1]?.toLowerCase();
}

function socketAsPage(url: string): string {
  if (/^wss:/i.test(url)) return `https:${url.slice(4)}`;
  if (/^ws:/i.test(url)) return `http:${url.slice(3)}`;
  return url;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || shorten(url, 60);
  } catch {
    return shorten(url, 60);
  }
}
