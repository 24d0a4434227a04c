import type { PortalProfile } from '../src/shared/portal-profile';

/**
 * Puts the lab's port into a lab portal profile: start URL, applications URL, allowed and
 * challenge hosts; for the https lab (`scheme: 'https'`), its addresses become https too.
 */
export function bindLabProfile(profile: PortalProfile, port: number, scheme: 'http' | 'https' = 'http'): PortalProfile {
  const withPort = (url: string): string => {
    const u = new URL(url);
    if (!u.hostname.endsWith('.example') || u.port) return url;
    if (scheme === 'https' && u.protocol === 'http:') u.protocol = 'https:';
    u.port = String(port);
    return u.toString();
  };
  return {
    ...profile,
    startUrl: withPort(profile.startUrl),
    allowedHosts: profile.allowedHosts.map((h) => (h.includes(':') || !h.endsWith('.example') ? h : `${h}:${port}`)),
    challengeHosts: profile.challengeHosts.map((h) => (h.includes(':') || !h.endsWith('.example') ? h : `${h}:${port}`)),
    ...(profile.applicationsUrl ? { applicationsUrl: withPort(profile.applicationsUrl) } : {}),
  };
}
