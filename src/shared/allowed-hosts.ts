import type { PortalProfile } from './portal-profile';

/**
 * The one answer to "may the browser go to this address?" for one portal. The action guard's
 * `goto` and link rules, the browser's network lock and the Electron shell's will-navigate all
 * call `isAllowedUrl`, so there is one definition of the portal's address space.
 *
 * Everything is decided on the URL as the WHATWG parser (the browser's own) reads it, and by exact
 * comparison: never `startsWith`, `endsWith` or `includes` on host names.
 */

/** The parts of a portal profile the address check reads. */
export type HostPolicy = Pick<PortalProfile, 'name' | 'allowedHosts' | 'allowHttp'>;

type UrlCheck =
  /** `href` is the normalised absolute address, `host` its `hostname[:port]` as the browser will use it. */
  | { ok: true; href: string; host: string }
  | { ok: false; reason: string };

interface AllowedEntry {
  hostname: string;
  /** An explicit port, or null for "the scheme's default port". */
  port: string | null;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const MAX_SHOWN = 120;

/**
 * Whether `url` (resolved against `base` when it is relative) is one of the portal's addresses:
 * https (or http when the profile allows it), no user name in the address, a host name (not an
 * IP number) equal to an allowed host after the URL parser's lower-casing and IDNA/punycode
 * normalisation, on the allowed port (an entry without a port means the scheme's default port).
 */
export function isAllowedUrl(url: string, profile: HostPolicy, base?: string): UrlCheck {
  return checkAgainst(url, profile, profile.allowedHosts, 'addresses', base);
}

/** The parts of a portal profile the challenge-host check reads. */
type ChallengePolicy = Pick<PortalProfile, 'name' | 'challengeHosts' | 'allowHttp'>;

/**
 * Whether `url` is on one of the profile's `challengeHosts` (a CAPTCHA's own hosts, such as
 * www.google.com for reCAPTCHA), by the same rules as `isAllowedUrl`: same schemes, no user name,
 * no IP number, the exact host name on the listed port. The guard lets these through only while
 * the clerk holds the run's portal (`ChallengeHosts` in src/agent/guard/challenge-hosts.ts).
 */
export function isChallengeUrl(url: string, profile: ChallengePolicy, base?: string): UrlCheck {
  return checkAgainst(url, profile, profile.challengeHosts, 'challenge hosts', base);
}

function checkAgainst(url: string, profile: Pick<PortalProfile, 'name' | 'allowHttp'>, hosts: readonly string[], what: string, base: string | undefined): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url, validBase(base));
  } catch {
    return { ok: false, reason: `“${shorten(url)}” is not a complete web address` };
  }
  const schemes = profile.allowHttp ? 'https or http' : 'https';
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && profile.allowHttp)) {
    if (parsed.protocol === 'http:') return { ok: false, reason: `plain http is not allowed for ${profile.name}; only https` };
    return { ok: false, reason: `${parsed.protocol} addresses are never opened (only ${schemes})` };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'the address hides a user name before the host (user@host), a known trick to disguise where a link goes' };
  }
  const hostname = parsed.hostname;
  if (hostname === '') return { ok: false, reason: 'the address has no host' };
  if (hostname.startsWith('[') || IPV4.test(hostname)) {
    return { ok: false, reason: `the address is a bare IP number (${hostname}), not one of ${profile.name}'s host names` };
  }
  if (hostname.endsWith('.')) {
    return { ok: false, reason: `the host name ends with a dot (${shorten(hostname)}); the portal is only opened by its exact name` };
  }
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol]!;
  const entries = hostEntries(hosts);
  const sameName = entries.filter((entry) => entry.hostname === hostname);
  if (sameName.length === 0) {
    return { ok: false, reason: `${shorten(hostname)} is not one of ${profile.name}'s ${what} (${hosts.join(', ') || 'none listed'})` };
  }
  if (!sameName.some((entry) => (entry.port ?? DEFAULT_PORTS[parsed.protocol]) === port)) {
    return { ok: false, reason: `${hostname} is one of ${profile.name}'s ${what}, but not on port ${port} (allowed: ${hosts.join(', ')})` };
  }
  return { ok: true, href: parsed.href, host: parsed.host };
}

/** A profile's host list, normalised the way the URL parser normalises a host. Bad entries match nothing. */
function hostEntries(hosts: readonly string[]): AllowedEntry[] {
  const entries: AllowedEntry[] = [];
  for (const raw of hosts) {
    const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(raw.trim().toLowerCase());
    if (!match) continue;
    let hostname: string;
    try {
      hostname = new URL(`https://${match[1]}/`).hostname;
    } catch {
      continue;
    }
    if (match[2] !== undefined && (Number(match[2]) < 1 || Number(match[2]) > 65535)) continue;
    entries.push({ hostname, port: match[2] === undefined ? null : String(Number(match[2])) });
  }
  return entries;
}

function validBase(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  try {
    return new URL(base).href;
  } catch {
    return undefined;
  }
}

/** Untrusted text quoted in a reason, cut to a readable length. */
export function shorten(text: string, max = MAX_SHOWN): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
