/** The hostnames the lab answers, and what each one is. */

export const PORTAL_IDS = ['shops', 'power', 'tax'] as const;
export type PortalId = (typeof PORTAL_IDS)[number];

export const PORTAL_HOSTS: Readonly<Record<PortalId, string>> = {
  shops: 'shops.portal.example',
  power: 'power.portal.example',
  tax: 'tax.portal.example',
};
/** The demo phone that shows the one-time codes "sent" to each client. */
export const PHONE_HOST = 'phone.portal.example';
/** The lab's own control API. */
export const CONTROL_HOST = 'lab.portal.example';
/** Serves the reCAPTCHA-like widget (a third-party frame, as on real portals). */
export const CAPTCHA_HOST = 'www.google.example';

export type HostKind =
  | { kind: 'portal'; portal: PortalId }
  | { kind: 'phone' }
  | { kind: 'control' }
  | { kind: 'captcha' }
  | { kind: 'attacker'; host: string };

/** The hostname of a Host header, lower-cased, without the port. */
export function hostnameOf(hostHeader: string | undefined): string {
  const value = (hostHeader ?? '').trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon >= 0 ? value.slice(0, colon) : value;
}

export function classifyHost(hostHeader: string | undefined): HostKind {
  const host = hostnameOf(hostHeader);
  for (const id of PORTAL_IDS) if (PORTAL_HOSTS[id] === host) return { kind: 'portal', portal: id };
  if (host === PHONE_HOST) return { kind: 'phone' };
  if (host === CONTROL_HOST || host === '127.0.0.1' || host === 'localhost' || host === '[::1]') return { kind: 'control' };
  if (host === CAPTCHA_HOST) return { kind: 'captcha' };
  return { kind: 'attacker', host: host || '(no host)' };
}

export function originOf(host: string, port: number, scheme: 'http' | 'https' = 'http'): string {
  return `${scheme}://${host}:${port}`;
}

export function isPortalId(value: string): value is PortalId {
  return (PORTAL_IDS as readonly string[]).includes(value);
}
