import { z } from 'zod';
import { isAllowedUrl } from './allowed-hosts';
import { patternProblem } from './linear-pattern';
import { RequestMapEntry } from './request-map';

/** Words that make a control risky (matched on word boundaries, case-insensitive). */
export const DEFAULT_RISKY_WORDS = ['submit', 'pay', 'payment', 'confirm', 'delete', 'remove', 'sign', 'download', 'declare', 'cancel application', 'withdraw'];

/** Title or heading patterns of final-review pages. */
const DEFAULT_FINAL_REVIEW_PATTERNS = ['check your answers', 'review your application', 'review and submit', 'declaration and submit'];

/** An allowed host: a hostname, or `hostname:port` where the portal is not on the scheme's default port. */
const AllowedHost = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, 'a lower-case hostname, optionally with :port (no scheme, no path)');

/**
 * A path pattern of a profile's `submitPaths`, `forbiddenPaths` and `allowedPaths`: an absolute
 * path, matched as a prefix ending at a segment boundary; a `*` segment stands for any one segment.
 */
const PathPattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\/[A-Za-z0-9._~%*/-]*$/, 'an absolute path such as /apply/submit (letters, digits, . _ ~ % - and * for one segment)');

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])(:\d+)?$/i;
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The host name the WHATWG URL parser makes of `name` (as a browser will), or undefined when it makes none. */
function urlHostname(name: string): string | undefined {
  try {
    return new URL(`https://${name}/`).hostname;
  } catch {
    return undefined;
  }
}

/** What the office knows about one portal. An office adds a real portal by writing one of these. */
const PortalProfileShape = z.strictObject({
  id: z.string().min(1).max(80).regex(/^[a-z0-9-]+$/, 'lower-case letters, digits and dashes'),
  name: z.string().min(1).max(200),
  startUrl: z.url(),
  allowedHosts: z.array(AllowedHost).min(1),
  /**
   * A CAPTCHA's own hosts, written like `allowedHosts` (reCAPTCHA: www.google.com and
   * www.gstatic.com). Never open while the agent works: the guard lets them through only while the
   * clerk holds the run's portal in a take-over, and then only to read (GET, HEAD) or for the
   * challenge's own frames' requests; nothing the portal page sends there that carries data.
   */
  challengeHosts: z.array(AllowedHost).max(20).default([]),
  /** Allow plain http (only for the lab and intranet portals). */
  allowHttp: z.boolean().default(false),
  /**
   * The portal does not work without its service worker: let it register one. Off by default
   * (blocked in the portal's context); when on, its requests are still judged by the egress lock,
   * which reads https requests whole, but they never pass the page's request routing.
   */
  needsServiceWorkers: z.boolean().default(false),
  riskyWords: z.array(z.string().min(1)).default(DEFAULT_RISKY_WORDS),
  /** Case-insensitive substrings of the title or a heading that mark a final-review page. */
  finalReviewPatterns: z.array(z.string().min(1)).default(DEFAULT_FINAL_REVIEW_PATTERNS),
  signIn: z
    .strictObject({
      /** Substring of the sign-in page's URL path, where the portal has a fixed one. */
      urlContains: z.string().optional(),
      usernameLabel: z.string().default('Username'),
      passwordLabel: z.string().default('Password'),
      submitLabel: z.string().default('Sign in'),
    })
    .default({ usernameLabel: 'Username', passwordLabel: 'Password', submitLabel: 'Sign in' }),
  otp: z
    .strictObject({
      /** Words on the page that mean a one-time code is asked for. */
      words: z.array(z.string()).default(['verification code', 'one-time code', 'one time password', 'otp']),
    })
    .default({ words: ['verification code', 'one-time code', 'one time password', 'otp'] }),
  confirmation: z.strictObject({
    /** Regex (source) that finds the application number on the confirmation page. */
    applicationNumberPattern: z.string().min(1),
    /** Case-insensitive substring of the title or a heading on the confirmation page. */
    pageContains: z.string().min(1),
  }),
  /** Where the portal lists the client's applications (checked before any retried submission). */
  applicationsUrl: z.url().optional(),
  /**
   * The portal's final submission endpoints (`/apply/submit`). A request to one of them is held
   * for the clerk's approval whatever caused it. A profile that names none has every request
   * that sends data held instead, since code cannot tell a section save from a submission.
   */
  submitPaths: z.array(PathPattern).max(50).default([]),
  /**
   * The request map (`src/shared/request-map.ts`): method + path (+ shape) → save, lookup,
   * submit, payment or forbidden. A request that can change state goes without the clerk only
   * when an entry here, or one the clerk taught, names it harmless in exactly its shape.
   * `submitPaths` still works beside it (each is a submit entry for any method, by path prefix).
   */
  requestMap: z.array(RequestMapEntry).max(500).default([]),
  /** Paths never requested, approved or not (account deletion, withdrawals, profile changes), beyond the built-in ones. */
  forbiddenPaths: z.array(PathPattern).max(200).default([]),
  /** When given, the only paths the run may request on the portal's hosts. */
  allowedPaths: z.array(PathPattern).max(200).optional(),
});
/**
 * A portal profile, checked when it loads, before anything runs: the application-number pattern
 * compiles with RE2's linear-time engine (no backreferences or lookaround); allowed and challenge hosts are host names (an IP
 * number is refused with a reason), and no challenge host is a portal host; the start and
 * applications addresses use an allowed scheme and host.
 */
export const PortalProfile = PortalProfileShape.superRefine((profile, ctx) => {
  const problem = patternProblem(profile.confirmation.applicationNumberPattern);
  if (problem) ctx.addIssue({ code: 'custom', path: ['confirmation', 'applicationNumberPattern'], message: problem });
  for (const key of ['allowedHosts', 'challengeHosts'] as const) {
    for (const [i, host] of profile[key].entries()) {
      if (IP_LITERAL.test(host)) {
        ctx.addIssue({
          code: 'custom',
          path: [key, i],
          message: `${host} is an IP number; the guard opens portals only by host name (give an intranet portal a DNS name or a hosts-file entry)`,
        });
        continue;
      }
      const name = host.replace(/:\d+$/, '');
      const port = /:(\d+)$/.exec(host)?.[1];
      if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
        ctx.addIssue({ code: 'custom', path: [key, i], message: `${host} has port ${port}; a port is 1 to 65535` });
        continue;
      }
      // What the URL parser makes of it: 2130706433, 0x7f000001 and 127.1 are all 127.0.0.1.
      const normalised = urlHostname(name);
      if (normalised === undefined || normalised.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(normalised)) {
        ctx.addIssue({
          code: 'custom',
          path: [key, i],
          message: `${host} is an IP number once a browser reads it${normalised ? ` (${normalised})` : ''}; the guard opens portals only by DNS name`,
        });
        continue;
      }
      if (!name.split('.').every((label) => HOST_LABEL.test(label))) {
        ctx.addIssue({ code: 'custom', path: [key, i], message: `${host} is not a host name (labels of letters, digits and inner dashes, joined by dots)` });
      }
    }
  }
  for (const [i, host] of profile.challengeHosts.entries()) {
    const name = host.replace(/:\d+$/, '');
    if (profile.allowedHosts.some((allowed) => allowed.replace(/:\d+$/, '') === name)) {
      ctx.addIssue({ code: 'custom', path: ['challengeHosts', i], message: `${host} is one of allowedHosts too; a challenge host is a CAPTCHA's own host, open only during a take-over, never one of the portal's` });
    }
  }
  const hosts = new Set(profile.allowedHosts.map((h) => h.toLowerCase()));
  for (const [i, entry] of profile.requestMap.entries()) {
    if (entry.host !== undefined && !hosts.has(entry.host.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['requestMap', i, 'host'], message: `${entry.host} is not one of allowedHosts; a map entry names only the portal's own hosts` });
    }
    if (entry.kind === 'save' || entry.kind === 'lookup') {
      const clash = profile.forbiddenPaths.find((pattern) => pathPrefixOf(pattern, entry.path));
      if (clash) ctx.addIssue({ code: 'custom', path: ['requestMap', i, 'path'], message: `${entry.method} ${entry.path} is named a ${entry.kind}, but forbiddenPaths has ${clash}` });
    }
  }
  const urls: [string, string | undefined][] = [
    ['startUrl', profile.startUrl],
    ['applicationsUrl', profile.applicationsUrl],
  ];
  for (const [key, url] of urls) {
    if (url === undefined) continue;
    // The same test the guard applies to every address the run opens.
    const check = isAllowedUrl(url, profile);
    if (!check.ok) ctx.addIssue({ code: 'custom', path: [key], message: check.reason });
  }
});
export type PortalProfile = z.infer<typeof PortalProfile>;

/** Whether a forbidden path pattern (a prefix) covers a map path: segment by segment, `*` either side matching any. */
function pathPrefixOf(pattern: string, path: string): boolean {
  const want = pattern.toLowerCase().split('/').filter(Boolean);
  const have = path.toLowerCase().split('/').filter(Boolean);
  return want.length <= have.length && want.every((segment, i) => segment === '*' || have[i] === '*' || segment === have[i]);
}
export type PortalProfileInput = z.input<typeof PortalProfile>;
