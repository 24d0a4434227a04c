import type { PortalProfile } from '../../shared/portal-profile';

/**
 * Chromium `--host-resolver-rules` that let the browser resolve only the portals' host names:
 * every other name fails to resolve (`~NOTFOUND`), whatever asks for it (a redirect hop, a frame
 * in its own renderer, a WebSocket, a DNS prefetch). It is the lowest layer of the lock and the
 * coarsest: per browser rather than per context, by name only (ports and schemes are the network
 * lock's business), and it cannot stop a page that addresses a bare IP number (the network lock
 * refuses those). With `mapTo`, the allowed names resolve to that address (the lab: 127.0.0.1).
 */
export function hostResolverRulesFor(profiles: readonly Pick<PortalProfile, 'allowedHosts'>[], options: { mapTo?: string } = {}): string {
  const names = new Set<string>();
  for (const profile of profiles) {
    for (const entry of profile.allowedHosts) {
      const hostname = entry.trim().toLowerCase().replace(/:\d{1,5}$/, '');
      if (/^[a-z0-9.-]+$/.test(hostname) && !hostname.endsWith('.')) names.add(hostname);
    }
  }
  const allowed = [...names].sort();
  if (options.mapTo) return [...allowed.map((name) => `MAP ${name} ${options.mapTo}`), 'MAP * ~NOTFOUND'].join(', ');
  return ['MAP * ~NOTFOUND', ...allowed.map((name) => `EXCLUDE ${name}`)].join(', ');
}

/** Where a connection to `hostname:port` goes under a set of `--host-resolver-rules`. */
export type ResolverTarget =
  /** No rule touches the name: it resolves as usual (DNS). */
  | { kind: 'as-is'; hostname: string; port: number }
  /** A MAP rule sends it to another host (and port, when the rule gives one). */
  | { kind: 'mapped'; hostname: string; port: number }
  /** A MAP rule to `~NOTFOUND`: the name does not resolve. */
  | { kind: 'not-found' };

/**
 * Reads Chromium `--host-resolver-rules` the way Chromium's HostMappingRules does, for code that
 * connects on the browser's behalf (the egress proxy) and must land where the browser would:
 * rules are separated by commas; `EXCLUDE pattern` rules are checked first and leave a matching
 * name as it is; then the first `MAP pattern replacement` whose pattern matches the host name (or
 * `host:port`) wins. Patterns are globs (`*`, `?`), compared in lower case; a replacement is
 * `host`, `host:port` or `~NOTFOUND`. Rules of any other form are ignored, as Chromium ignores them.
 */
export function resolverTarget(rules: string | undefined, hostname: string, port: number): ResolverTarget {
  const host = hostname.toLowerCase();
  const parsed = (rules ?? '')
    .split(',')
    .map((rule) => rule.trim().split(/\s+/))
    .filter((parts) => parts.length >= 2);
  const matches = (pattern: string): boolean => glob(pattern.toLowerCase(), host) || glob(pattern.toLowerCase(), `${host}:${port}`);
  if (parsed.some((parts) => parts.length === 2 && parts[0]!.toUpperCase() === 'EXCLUDE' && matches(parts[1]!))) {
    return { kind: 'as-is', hostname: host, port };
  }
  for (const parts of parsed) {
    if (parts.length !== 3 || parts[0]!.toUpperCase() !== 'MAP' || !matches(parts[1]!)) continue;
    const replacement = parts[2]!;
    if (replacement === '~NOTFOUND') return { kind: 'not-found' };
    const withPort = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(replacement);
    if (withPort) return { kind: 'mapped', hostname: withPort[1]!.replace(/^\[|\]$/g, ''), port: Number(withPort[2]) };
    return { kind: 'mapped', hostname: replacement.replace(/^\[|\]$/g, ''), port };
  }
  return { kind: 'as-is', hostname: host, port };
}

/** base::MatchPattern: `*` any run of characters, `?` one character, everything else literal. */
function glob(pattern: string, text: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(text);
}
