import type { PortalProfile } from '../src/shared/portal-profile';

/** Puts the lab's port into a lab portal profile: start URL, applications URL, allowed and challenge hosts. */
export function bindLabProfile(profile: PortalProfile, port: number): PortalProfile {
  const withPort = (url: string): string => {
    const u = new URL(url);
    if (!u.hostname.endsWith('.example') || u.port) return url;
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
