import { describe, expect, it } from 'vitest';
import { isAllowedUrl } from '../../../src/shared/allowed-hosts';
import { makeProfile } from './fixtures';

/** allowedHosts: shops.portal.example, static.portal.example, uploads.portal.example:8443; https only. */
const profile = makeProfile();
const httpProfile = makeProfile({ allowHttp: true });
const BASE = 'https://shops.portal.example/renewal/step-1';

type Case = [url: string, ok: boolean, why: string, base?: string];

const CASES: Case[] = [
  // The portal's own addresses
  ['https://shops.portal.example/', true, 'the start page'],
  ['https://shops.portal.example/renewal?step=2#top', true, 'path, query and fragment do not matter'],
  ['HTTPS://SHOPS.PORTAL.EXAMPLE/', true, 'scheme and host are case-insensitive'],
  ['https://shops.portal.example:443/', true, 'the explicit default port is the default port'],
  ['https://shops.portal.example:0443/', true, 'the parser reads port 0443 as 443'],
  ['https://static.portal.example/app.js', true, 'a second listed host'],
  ['https://uploads.portal.example:8443/form', true, 'a listed host:port'],
  ['/renewal/step-2', true, 'an absolute path, read against the page', BASE],
  ['step-3', true, 'a relative path', BASE],
  ['?page=2', true, 'a query only', BASE],
  ['#declaration', true, 'a fragment only', BASE],
  ['//shops.portal.example/x', true, 'protocol-relative to a listed host', BASE],
  ['https:shops.portal.example', true, 'the parser reads a missing // for https'],
  ['  https://shops.portal.example/  ', true, 'surrounding spaces are trimmed by the parser'],
  ['https://ｓｈｏｐｓ.portal.example/', true, 'full-width letters map to the same host (IDNA), which is where the browser goes'],
  ['https://shops。portal。example/', true, 'ideographic full stops map to dots'],
  ['https://shops.portal.exa\tmple/', true, 'the parser drops tabs, so the browser reaches the listed host'],
  ['https://shops.portal.example\u200b/', true, 'a zero-width space is dropped by IDNA'],

  // Schemes
  ['http://shops.portal.example/', false, 'plain http'],
  ['javascript:alert(1)', false, 'javascript:'],
  [' JavaScript:alert(document.cookie)', false, 'javascript: in another case with a leading space'],
  ['java\nscript:alert(1)', false, 'javascript: split by a newline (the parser drops it)'],
  ['\u0001javascript:alert(1)', false, 'javascript: behind a control character'],
  ['data:text/html,<script>alert(1)</script>', false, 'data:'],
  ['file:///etc/passwd', false, 'file:'],
  ['blob:https://shops.portal.example/5c7a5d7e-0000', false, 'blob:, even of the portal'],
  ['about:blank', false, 'about:blank'],
  ['ftp://shops.portal.example/', false, 'ftp:'],
  ['wss://shops.portal.example/socket', false, 'a socket is not a page'],
  ['mailto:help@shops.portal.example', false, 'mailto:'],
  ['chrome://settings', false, 'browser pages'],
  ['view-source:https://shops.portal.example/', false, 'view-source:'],

  // User names in the address
  ['https://user@shops.portal.example/', false, 'userinfo'],
  ['https://user:secret@shops.portal.example/', false, 'userinfo with a password'],
  ['https://shops.portal.example@attacker.example/', false, 'the listed host as a user name'],
  ['https://shops.portal.example:443@attacker.example/', false, 'the listed host and port as userinfo'],

  // IP numbers
  ['https://127.0.0.1/', false, 'IPv4'],
  ['https://2130706433/', false, 'IPv4 as one decimal number'],
  ['https://0x7f.0.0.1/', false, 'IPv4 with a hex part'],
  ['https://0177.0.0.1/', false, 'IPv4 with an octal part'],
  ['https://[::1]/', false, 'IPv6'],
  ['https://[::ffff:127.0.0.1]/', false, 'IPv4-mapped IPv6'],

  // Look-alikes and tricks on the name
  ['https://shops.portal.example./', false, 'trailing dot'],
  ['https://shops.portal.example.:443/', false, 'trailing dot with the port'],
  ['https://shops.portal.example.attacker.example/', false, 'the listed host as a prefix'],
  ['https://shops.portal.example%2eattacker.example/', false, 'a percent-encoded dot (decoded by the parser)'],
  ['https://shops.portal.example\u3002attacker.example/', false, 'an ideographic full stop turning into a suffix'],
  ['https://attacker.example/shops.portal.example', false, 'the listed host in the path'],
  ['https://attacker.example/?next=https://shops.portal.example/', false, 'the listed host in the query'],
  ['https://attacker.example\\@shops.portal.example/', false, 'a backslash ends the host for https'],
  ['https://shops-portal.example/', false, 'dash for dot'],
  ['https://shops.portal.exarnple/', false, 'rn for m'],
  ['https://shоps.portal.example/', false, 'Cyrillic о (punycode xn--shps-65d)'],
  ['https://xn--shps-65d.portal.example/', false, 'the same look-alike written as punycode'],
  ['https://portal.example/', false, 'the parent domain'],
  ['https://www.shops.portal.example/', false, 'a subdomain of a listed host'],
  ['https://evilshops.portal.example/', false, 'a listed host as a suffix of the label'],

  // Ports
  ['https://shops.portal.example:8443/', false, 'a listed host on another port'],
  ['https://uploads.portal.example/', false, 'a host listed only with :8443, on the default port'],
  ['https://shops.portal.example:99999/', false, 'a port out of range is not an address'],

  // Relative addresses
  ['//attacker.example/x', false, 'protocol-relative to another host', BASE],
  ['/\\attacker.example/x', false, 'slash-backslash is read as //', BASE],
  ['/renewal/step-2', false, 'a relative path with no page to read it against'],
  ['/x', false, 'a relative path on an off-list page', 'https://attacker.example/'],
];

describe('isAllowedUrl', () => {
  it('has a table of at least 40 addresses', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES)('%j → %s (%s)', (url, ok, _why, base) => {
    const result = isAllowedUrl(url, profile, base);
    expect(result.ok, JSON.stringify(result)).toBe(ok);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
  });

  it('allows http only when the profile does, and then on the http default port', () => {
    expect(isAllowedUrl('http://shops.portal.example/', httpProfile).ok).toBe(true);
    expect(isAllowedUrl('http://shops.portal.example:80/', httpProfile).ok).toBe(true);
    expect(isAllowedUrl('http://shops.portal.example:443/', httpProfile).ok).toBe(false);
    expect(isAllowedUrl('http://uploads.portal.example:8443/', httpProfile).ok).toBe(true);
    expect(isAllowedUrl('https://shops.portal.example/', httpProfile).ok).toBe(true);
  });

  it('explains a refusal in words a clerk understands', () => {
    const cases: [string, RegExp][] = [
      ['http://shops.portal.example/', /plain http is not allowed for Shops portal/],
      ['javascript:alert(1)', /javascript: addresses are never opened/],
      ['https://shops.portal.example@attacker.example/', /user name/],
      ['https://2130706433/', /IP number \(127\.0\.0\.1\)/],
      ['https://shops.portal.example./', /ends with a dot/],
      ['https://shops.portal.example.attacker.example/', /not one of Shops portal's addresses/],
      ['https://shops.portal.example:8443/', /not on port 8443/],
      ['not a url', /not a complete web address/],
    ];
    for (const [url, reason] of cases) {
      const result = isAllowedUrl(url, profile);
      expect(result.ok ? 'allowed' : result.reason).toMatch(reason);
    }
  });

  it('answers the normalised address and host when allowed', () => {
    expect(isAllowedUrl('/renewal/../status', profile, BASE)).toEqual({ ok: true, href: 'https://shops.portal.example/status', host: 'shops.portal.example' });
    expect(isAllowedUrl('HTTPS://Uploads.Portal.Example:8443', profile)).toEqual({ ok: true, href: 'https://uploads.portal.example:8443/', host: 'uploads.portal.example:8443' });
  });

  it('reads profile entries the way it reads addresses, and ignores entries it cannot read', () => {
    const odd = { name: 'Odd', allowHttp: false, allowedHosts: ['shops.portal.example:443', 'bad host name', 'shops.portal.example.'] };
    expect(isAllowedUrl('https://shops.portal.example/', odd).ok).toBe(true);
    expect(isAllowedUrl('https://shops.portal.example./', odd).ok).toBe(false);
    expect(isAllowedUrl('https://bad host name/', odd).ok).toBe(false);
  });

  it('never matches by prefix, suffix or substring', () => {
    const one = { name: 'One', allowHttp: false, allowedHosts: ['portal.example'] };
    for (const url of ['https://shops.portal.example/', 'https://portal.example.evil/', 'https://xportal.example/', 'https://portal.examplex/']) {
      expect(isAllowedUrl(url, one).ok, url).toBe(false);
    }
  });
});
