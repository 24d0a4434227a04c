import { CAPTCHA_HOST, CONTROL_HOST, PHONE_HOST, PORTAL_HOSTS } from '../lab/hosts';

/**
 * Chromium `--host-resolver-rules` for the app: the portal lab's host names (all under the
 * reserved `.example` domain) resolve to the loopback lab; every other name resolves as usual,
 * so real portals keep working. (The CLI maps every name to the lab instead, one browser per
 * kind of run; the app has one browser for both.) Set before `ready`.
 */
export function labResolverRules(target = '127.0.0.1'): string {
  const names = [...Object.values(PORTAL_HOSTS), PHONE_HOST, CONTROL_HOST, CAPTCHA_HOST];
  return [...new Set(names)].sort().map((name) => `MAP ${name} ${target}`).join(', ');
}
