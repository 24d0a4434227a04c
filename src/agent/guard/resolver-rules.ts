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
