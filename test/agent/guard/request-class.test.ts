import { describe, expect, it } from 'vitest';
import { classifyRequest, pathMatches, serverPath } from '../../../src/agent/guard/request-class';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { patternProblem } from '../../../src/shared/linear-pattern';
import { WATER_BOARD } from './fixtures';

/** The commit gate's classifier: what a request can do, judged from its method and address alone. */

const profile = (extra: Record<string, unknown> = {}) =>
  PortalProfile.parse({
    ...WATER_BOARD,
    submitPaths: ['/apply/submit'],
    ...extra,
  });
const at = (path: string) => `https://connect.water.example${path}`;
const kind = (method: string, path: string, p = profile(), finalReview = false) => classifyRequest({ method, url: at(path) }, p, { finalReview });

describe('classifyRequest', () => {
  it('holds the submission address for any method, and not an address that only starts the same', () => {
    expect(kind('POST', '/apply/submit')).toMatchObject({ kind: 'commit', rule: 'submit-path', submission: true });
    expect(kind('GET', '/apply/submit/2?x=1')).toMatchObject({ kind: 'commit', rule: 'submit-path' });
    expect(kind('GET', '/apply/submitted')).toEqual({ kind: 'free' });
  });

  it('holds an address whose path or query says a risky word, read as a person reads it', () => {
    expect(kind('GET', '/lab/pay-now')).toMatchObject({ kind: 'commit', rule: 'risky-address' });
    expect(kind('GET', '/start?next=%2Fconfirm')).toMatchObject({ kind: 'commit', rule: 'risky-address' });
    // Cyrillic Ѕ and a full-width u, as on buttons: still "submit".
    expect(kind('GET', `/${encodeURIComponent('Ѕｕbmit')}-now`)).toMatchObject({ kind: 'commit', rule: 'risky-address' });
    expect(kind('GET', '/payee-details')).toEqual({ kind: 'free' });
  });

  it('does not read "sign in" or "log out" in an address as the risky word "sign"', () => {
    // Default deny: a post is free only where the map names it; the words decide nothing more.
    const p = profile({ requestMap: [{ method: 'POST', path: '/sign-in', kind: 'save' }, { method: 'POST', path: '/account/sign_out', kind: 'save' }, { method: 'POST', path: '/declaration/sign', kind: 'save' }] });
    expect(kind('POST', '/sign-in', p)).toEqual({ kind: 'free' });
    expect(kind('POST', '/account/sign_out', p)).toEqual({ kind: 'free' });
    expect(kind('POST', '/declaration/sign', p)).toMatchObject({ kind: 'commit', rule: 'risky-address' });
  });

  it('holds every post the map does not name, and data sent from a final-review page', () => {
    const p = profile({ requestMap: [{ method: 'POST', path: '/apply/owner', kind: 'save' }] });
    expect(kind('POST', '/apply/owner', p)).toEqual({ kind: 'free' });
    expect(kind('POST', '/apply/owner')).toMatchObject({ kind: 'commit', rule: 'unmapped-request', submission: false });
    expect(kind('POST', '/apply/owner', profile(), true)).toMatchObject({ kind: 'commit', rule: 'final-review-post' });
    expect(kind('GET', '/apply/owner', profile(), true)).toEqual({ kind: 'free' });
    expect(kind('POST', '/apply/owner', profile({ submitPaths: [] }))).toMatchObject({ kind: 'commit', rule: 'unmapped-request', submission: false });
  });

  it('refuses account changes and undoing what the client holds, whatever the profile says', () => {
    for (const path of ['/account/delete?confirm=yes', '/my/profile/edit', '/users/me/password/change', '/applications/WB-1/withdraw', '/licence/cancel', '/deactivate']) {
      expect(kind('GET', path), path).toMatchObject({ kind: 'forbidden', rule: 'forbidden-path' });
    }
    expect(kind('POST', '/apply/submit', profile({ forbiddenPaths: ['/apply'] }))).toMatchObject({ kind: 'forbidden' });
    expect(kind('GET', '/applications')).toEqual({ kind: 'free' });
  });

  it('refuses every path outside allowedPaths when the profile gives them', () => {
    const p = profile({ allowedPaths: ['/apply', '/applications/*/view'] });
    expect(kind('GET', '/apply/owner', p)).toEqual({ kind: 'free' });
    expect(kind('GET', '/applications/WB-1/view', p)).toEqual({ kind: 'free' });
    expect(kind('GET', '/feedback', p)).toMatchObject({ kind: 'forbidden', rule: 'outside-allowed-paths' });
  });

  it('reads words run together as a server’s router does: camelCase, letters against digits, known words joined', () => {
    // The red team's finds: ASP.NET-style action names and lower-case run-together words.
    for (const path of ['/Account/DeleteAccount', '/Account/ChangePassword', '/applications/1/withdrawApplication', '/api/cancelApplication', '/unsubscribeAll', '/account/closeaccount', '/me/deletemyaccount']) {
      expect(kind('POST', path), path).toMatchObject({ kind: 'forbidden', rule: 'forbidden-path' });
    }
    for (const path of ['/plot/submitNow', '/api/payNow', '/paynow']) expect(kind('POST', path), path).toMatchObject({ kind: 'commit', rule: 'risky-address' });
    // Ordinary words that only contain those stay what they are.
    for (const path of ['/payee-details', '/apply/step2', '/design/assign', '/applications', '/home/menu', '/returns/view']) expect(kind('GET', path), path).toEqual({ kind: 'free' });
  });

  it('judges a path as a server reads it: ;parameters, encoded slashes, dot segments, trailing dots, case', () => {
    expect(serverPath('/plot/x/..%2flodge;a=1')).toBe('/plot/lodge');
    expect(serverPath('/Apply/Submit;jsessionid=9F')).toBe('/apply/submit');
    expect(serverPath('/apply/submit./')).toBe('/apply/submit');
    expect(serverPath('/a/%2e%2e/apply\\submit')).toBe('/apply/submit');
    for (const path of ['/apply/submit;jsessionid=A1B2', '/apply/x/..%2fsubmit', '/apply/x/%2e%2e%2fsubmit', '/APPLY/submit.', '/apply%2fsubmit']) {
      expect(kind('POST', path), path).toMatchObject({ kind: 'commit', rule: 'submit-path', submission: true });
    }
    expect(kind('GET', '/account;x=1/delete')).toMatchObject({ kind: 'forbidden' });
  });

  it('reads a change to the account or a holding in the query too, with the thing in the path', () => {
    expect(kind('POST', '/account?action=close')).toMatchObject({ kind: 'forbidden', rule: 'forbidden-path' });
    expect(kind('POST', '/my/application?do=withdraw')).toMatchObject({ kind: 'forbidden', rule: 'forbidden-path' });
    // A list filtered by a status word is a read.
    expect(kind('GET', '/applications?status=withdrawn')).toEqual({ kind: 'free' });
    // A word alone in the query is not a forbidden path (it may still be a risky word the clerk approves).
    expect(kind('GET', '/search?q=withdraw')).not.toMatchObject({ kind: 'forbidden' });
  });

  it('on a challenge host: reads are free, data goes only from the challenge’s own frame, never as a commit', () => {
    const p = profile({ challengeHosts: ['www.google.com', 'www.gstatic.com'] });
    const judge = (method: string, url: string, fromFrame?: string) => classifyRequest({ method, url, fromFrame }, p, { finalReview: true });
    expect(judge('GET', 'https://www.google.com/recaptcha/api.js?render=explicit')).toEqual({ kind: 'free' });
    // The portal's own path rules do not apply there (a path the portal would hold or refuse).
    expect(judge('GET', 'https://www.gstatic.com/apply/submit')).toEqual({ kind: 'free' });
    expect(judge('POST', 'https://www.google.com/recaptcha/api2/userverify', 'https://www.google.com/recaptcha/api2/bframe?k=1')).toEqual({ kind: 'free' });
    // From another challenge host's frame too (hCaptcha's frame posts to its API host).
    expect(judge('POST', 'https://www.google.com/recaptcha/api2/reload', 'https://www.gstatic.com/frame')).toEqual({ kind: 'free' });
    for (const from of [undefined, 'https://connect.water.example/apply/review', 'about:blank', 'https://www.google.com.evil.example/']) {
      expect(judge('POST', 'https://www.google.com/recaptcha/api2/userverify', from), String(from)).toMatchObject({ kind: 'forbidden', rule: 'challenge-host' });
    }
    // The portal's own host is judged as before.
    expect(judge('POST', 'https://connect.water.example/apply/submit', 'https://www.google.com/')).toMatchObject({ kind: 'commit', rule: 'submit-path' });
  });

  it('matches path patterns at segment boundaries, * standing for one segment', () => {
    expect(pathMatches('/a/*/c', '/a/b/c/d')).toBe(true);
    expect(pathMatches('/a/*/c', '/a/c')).toBe(false);
    expect(pathMatches('/A', '/a%2F')).toBe(true);
  });
});

describe('portal profiles are checked when they load', () => {
  const issues = (extra: Record<string, unknown>) => {
    const parsed = PortalProfile.safeParse({ ...WATER_BOARD, ...extra });
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('refuses a pattern that does not compile or that RE2 cannot run in linear time', () => {
    expect(issues({ confirmation: { applicationNumberPattern: '(WB-', pageContains: 'x' } })[0]).toMatch(/^confirmation\.applicationNumberPattern: the pattern does not compile/);
    expect(issues({ confirmation: { applicationNumberPattern: '(\\d+)+$', pageContains: 'x' } })).toEqual([]);
    expect(issues({ confirmation: { applicationNumberPattern: '(\\d)\\1', pageContains: 'x' } })[0]).toMatch(/cannot run in linear time/);
  });

  it('refuses IP numbers and non-names as hosts, and start or list addresses off the allowed hosts', () => {
    expect(issues({ allowedHosts: ['127.0.0.1:8080'], startUrl: 'https://127.0.0.1:8080/' })[0]).toMatch(/^allowedHosts\.0: 127\.0\.0\.1:8080 is an IP number/);
    expect(issues({ allowedHosts: ['-bad-.example'] })[0]).toMatch(/not a host name/);
    expect(issues({ applicationsUrl: 'https://elsewhere.example/list' })[0]).toMatch(/^applicationsUrl: elsewhere\.example is not one of Water Board's addresses/);
    expect(issues({ startUrl: 'http://connect.water.example/' })[0]).toMatch(/^startUrl: plain http is not allowed for Water Board; only https/);
    expect(issues({})).toEqual([]);
  });

  it('checks challenge hosts as hosts, and never as one of the portal’s own', () => {
    expect(issues({ challengeHosts: ['www.google.com', 'www.gstatic.com'] })).toEqual([]);
    expect(issues({ challengeHosts: ['142.250.1.1'] })[0]).toMatch(/^challengeHosts\.0: 142\.250\.1\.1 is an IP number/);
    expect(issues({ challengeHosts: ['https://www.google.com/'] })[0]).toMatch(/^challengeHosts\.0: a lower-case hostname/);
    expect(issues({ challengeHosts: ['connect.water.example:8443'] })[0]).toMatch(/^challengeHosts\.0: connect\.water\.example:8443 is one of allowedHosts too/);
  });

  it('patternProblem accepts the patterns real portals use, and refuses what RE2 cannot run in linear time', () => {
    for (const p of ['SHP-\\d{4}-\\d{6}', '([A-Z]{2,3})-(\\d+)', '(?:WB|WS)-\\d{8}', '[(]+x', '(a{1,30}){2,}']) expect(patternProblem(p), p).toBeUndefined();
    expect(patternProblem('(SHP)-\\1')).toMatch(/linear time.*backreferences/);
    expect(patternProblem('SHP-(?=\\d)')).toMatch(/linear time/);
  });
});
