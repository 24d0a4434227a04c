import { isChallengeUrl } from '../../shared/allowed-hosts';
import type { PortalProfile } from '../../shared/portal-profile';
import type { CommitRuleName } from '../../shared/verdict';
import { foldForMatching, riskyWordIn } from './rules/risky-words';

/**
 * What a request can do to the client's affairs, judged from the request alone (method and
 * address), never from the button, link, script or code that caused it:
 * - `forbidden`: it would change the account itself (delete or close it, withdraw an
 *   application, change the profile or password). Refused, even with the clerk's approval.
 * - `commit`: it may commit something that cannot be taken back (a submission, a payment, a
 *   deletion). Held until the clerk approves this request.
 * - `free`: reading a page, saving a form section, a look-up.
 *
 * `submission` marks a commit that sends the application itself (the proof of `done` needs one).
 */
export type RequestClass =
  | { kind: 'free' }
  | { kind: 'commit'; rule: CommitRuleName; reason: string; submission: boolean }
  | { kind: 'forbidden'; rule: 'forbidden-path' | 'outside-allowed-paths' | 'challenge-host'; reason: string };

interface RequestFacts {
  method: string;
  url: string;
  /**
   * The address of the frame whose script sent it (a fetch, an XHR, a beacon), where the page's
   * request routing knows it; never given for a document request, which another frame can aim
   * at a frame (a form's target).
   */
  fromFrame?: string | undefined;
}

/** What the gate knows of the page the run is on when the request leaves. */
export interface PageState {
  /** The work page is a final-review page (the profile's `finalReviewPatterns`). */
  finalReview: boolean;
}

/** The profile's part the classifier reads. */
type RequestPolicy = Pick<PortalProfile, 'name' | 'allowHttp' | 'challengeHosts' | 'riskyWords' | 'submitPaths' | 'forbiddenPaths' | 'allowedPaths'>;

/** Methods that only read: they commit nothing unless their address says so. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** "sign" is a risky word on a button ("Sign the declaration"); in an address these phrases only start or end a session. */
const SESSION_PHRASES = /\bsign (in|on|up|out|off)\b|\blog (in|on|out|off)\b/g;

/**
 * The words of a path or a query as a reader sees them (decoded, then folded like control names:
 * full-width and look-alike letters read as Latin, invisible characters dropped), one space
 * between words and one at each end. Words a server reads as two are two here: camelCase and
 * letters against digits are split (`DeleteAccount`, `payNow`, `step2`), and a word that is
 * wholly made of words the classifier knows is read as those words (`closeaccount`,
 * `withdrawapplication`, `paynow`), so running words together does not hide them.
 */
function addressWords(text: string, known: ReadonlySet<string>): string {
  const split = safeDecode(text.replace(/\+/g, ' '))
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2');
  const words = foldForMatching(split).replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(' ');
  return ` ${words.map((word) => knownParts(word, known)?.join(' ') ?? word).join(' ')} `;
}

/** `word` as two or more known words run together (each of two letters or more), or undefined. */
function knownParts(word: string, known: ReadonlySet<string>): string[] | undefined {
  if (known.has(word) || word.length < 4) return undefined;
  // parts[i]: a split of word.slice(0, i) into known words, where one exists.
  const parts: (string[] | undefined)[] = [[]];
  for (let end = 2; end <= word.length; end++) {
    for (let start = end - 2; start >= 0 && !parts[end]; start--) {
      const head = parts[start];
      if (head && known.has(word.slice(start, end))) parts[end] = [...head, word.slice(start, end)];
    }
  }
  const found = parts[word.length];
  return found && found.length > 1 ? found : undefined;
}

/**
 * A path as a server may read it: each segment without its `;` parameters (`lodge;jsessionid=…`),
 * percent-decoded (an encoded `/` becomes a boundary), without trailing dots and spaces, then
 * `.` and `..` resolved; lower case, segments joined by `/`. `/plot/x/..%2flodge;a=1` reads
 * `/plot/lodge`. Path rules (submit, forbidden, allowed) and the address's words are judged on it.
 */
export function serverPath(path: string): string {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    for (const part of safeDecode(raw.split(';')[0] ?? '').split(/[/\\]/)) {
      const segment = part.replace(/[.\s]+$/u, (tail) => (part === '.' || part === '..' ? tail : '')).toLowerCase();
      if (segment === '' || segment === '.') continue;
      if (segment === '..') segments.pop();
      else segments.push(segment);
    }
  }
  return `/${segments.join('/')}`;
}

/**
 * Whether `path` (a URL path) is matched by `pattern`: a path prefix ending at a segment
 * boundary (`/apply/submit` matches `/apply/submit` and `/apply/submit/2`, not `/apply/submitted`),
 * where a `*` segment stands for any one segment (`/applications/*\/withdraw`). Case-insensitive,
 * on the path as a server reads it (`serverPath`).
 */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.toLowerCase().split('/').filter(Boolean);
  const have = serverPath(path).split('/').filter(Boolean);
  if (want.length > have.length) return false;
  return want.every((segment, i) => segment === '*' || segment === have[i]);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape is judged as written.
    return text;
  }
}

/** The first risky word (from the profile) in an address part's words, on word boundaries, session phrases aside. */
function riskyWordInAddress(words: string, riskyWords: readonly string[]): string | undefined {
  return riskyWordIn(words.replace(SESSION_PHRASES, ' '), riskyWords);
}

/**
 * The classifier every request lock calls (the page's request routing, the redirect lock, the
 * egress proxy, code's own fetches). Pure: reads the request, the profile and the page state.
 * An address that does not parse is refused as forbidden (the host locks refuse it anyway).
 */
export function classifyRequest(request: RequestFacts, profile: RequestPolicy, page: PageState): RequestClass {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { kind: 'forbidden', rule: 'forbidden-path', reason: 'the address does not parse' };
  }
  const method = request.method.toUpperCase();
  const path = url.pathname;
  const shown = `${method} ${path}`;

  if (profile.challengeHosts.length > 0 && isChallengeUrl(url.href, profile).ok) return challengeRequest(method, url, request.fromFrame, profile);

  const known = knownWords(profile.riskyWords);
  const pathWords = addressWords(serverPath(path), known);
  const queryWords = addressWords(url.search, known);
  const forbidden = (profile.forbiddenPaths ?? []).find((pattern) => pathMatches(pattern, path)) ?? accountChangeIn(pathWords, queryWords);
  if (forbidden) {
    return { kind: 'forbidden', rule: 'forbidden-path', reason: `${shown} is a forbidden path (${forbidden}): it changes the account or undoes an application, so Portal Desk never sends it, approved or not` };
  }
  if (profile.allowedPaths && profile.allowedPaths.length > 0 && !profile.allowedPaths.some((pattern) => pathMatches(pattern, path))) {
    return { kind: 'forbidden', rule: 'outside-allowed-paths', reason: `${shown} is outside the paths the portal profile allows (${profile.allowedPaths.join(', ')})` };
  }
  const submitPaths = profile.submitPaths ?? [];
  const submitPath = submitPaths.find((pattern) => pathMatches(pattern, path));
  if (submitPath) {
    return { kind: 'commit', rule: 'submit-path', submission: true, reason: `${shown} is the portal's submission address (${submitPath}): it sends the application` };
  }
  const word = riskyWordInAddress(pathWords, profile.riskyWords) ?? riskyWordInAddress(queryWords, profile.riskyWords);
  if (word) {
    const submission = submitPaths.length === 0 && /\bsubmit\b/i.test(word);
    return { kind: 'commit', rule: 'risky-address', submission, reason: `the address of ${shown} says “${word}”: the clerk approves that request before it is sent` };
  }
  if (READ_METHODS.has(method)) return { kind: 'free' };
  if (page.finalReview) {
    return { kind: 'commit', rule: 'final-review-post', submission: submitPaths.length === 0, reason: `${shown} leaves a final-review page, where one request sends the application` };
  }
  if (submitPaths.length === 0) {
    return {
      kind: 'commit',
      rule: 'undeclared-post',
      submission: false,
      reason: `${shown} sends data, and the portal profile names no submitPaths, so code cannot tell a section save from a submission; the clerk approves every such request (list the portal's submitPaths to stop this)`,
    };
  }
  return { kind: 'free' };
}

/**
 * A request to one of the profile's challenge hosts (a CAPTCHA's own service; the host locks let
 * it through only while the clerk holds the portal). Never a commit, never held for approval:
 * - reading (GET, HEAD, OPTIONS) is free: the widget's page, its scripts and pictures;
 * - sending data (POST and the rest) is free only from a script in a frame that is itself on a
 *   challenge host: the challenge talking to its own service (reCAPTCHA's userverify and reload,
 *   hCaptcha's frame on newassets.hcaptcha.com posting to api.hcaptcha.com). The portal's page
 *   cannot script a frame of another origin, so what such a frame sends is the challenge's, not
 *   the portal page's or the case's;
 * - anything else that sends data there is refused, approved or not: the portal page's own fetch
 *   or beacon, a form (whatever frame it targets), a redirect, a worker, a request the egress
 *   lock sees without the page's routing having admitted it.
 * The portal's path rules (submit, forbidden and allowed paths) describe the portal, not these hosts.
 */
function challengeRequest(method: string, url: URL, fromFrame: string | undefined, profile: RequestPolicy): RequestClass {
  if (READ_METHODS.has(method)) return { kind: 'free' };
  if (fromFrame !== undefined && isChallengeUrl(fromFrame, profile).ok) return { kind: 'free' };
  return {
    kind: 'forbidden',
    rule: 'challenge-host',
    reason: `${method} to ${url.host} sends data to a challenge host (a CAPTCHA's own service); only the challenge's own frame may send there, never the portal's page`,
  };
}

/** Words that name the account itself, and what would change or end it. */
const ACCOUNT_THINGS = ['account', 'profile', 'user', 'users', 'me', 'membership', 'password', 'email', 'mobile', 'phone', 'bank', 'credentials', 'nominee'];
const ACCOUNT_CHANGES = ['delete', 'remove', 'close', 'deactivate', 'cancel', 'terminate', 'erase', 'change', 'update', 'edit', 'reset', 'transfer'];
/** Words that name what the client holds, and what would undo it. */
const HOLDINGS = ['application', 'applications', 'registration', 'registrations', 'licence', 'license', 'connection', 'certificate', 'return', 'returns'];
const UNDOING = ['delete', 'remove', 'cancel', 'withdraw', 'surrender', 'terminate', 'revoke', 'disconnect'];
/** Words that are forbidden wherever they stand in a path. */
const ALWAYS_FORBIDDEN = ['withdraw', 'withdrawal', 'unsubscribe', 'deregister', 'deactivate', 'surrender', 'disconnect'];
/** Short words that run between those in an address (`deletemyaccount`, `unsubscribeall`, `paynow`). */
const GLUE = ['my', 'all', 'now', 'the', 'this', 'and', 'to', 'do'];
const CLASSIFIER_WORDS = [...ACCOUNT_THINGS, ...ACCOUNT_CHANGES, ...HOLDINGS, ...UNDOING, ...ALWAYS_FORBIDDEN, ...GLUE];

/** The words run-together address words are read into: the classifier's own and the profile's risky words (single words). */
function knownWords(riskyWords: readonly string[]): ReadonlySet<string> {
  return new Set([...CLASSIFIER_WORDS, ...riskyWords.map((w) => foldForMatching(w)).filter((w) => /^[\p{L}\p{N}]{2,}$/u.test(w))]);
}

/**
 * The forbidden paths every profile has, whatever it lists: an address whose path names the
 * account (account, profile, password…) together with a change to it (delete, close, change…),
 * or what the client holds (application, registration, licence…) together with its undoing
 * (cancel, withdraw, revoke…), or a word such as "withdraw" or "deactivate" on its own. The
 * change may stand in the query (`/account?action=close`); a word alone in the query is not
 * enough (`/applications?status=withdraw` may only filter a list).
 */
function accountChangeIn(pathWords: string, queryWords: string): string | undefined {
  const has = (words: string, list: readonly string[]) => list.find((w) => words.includes(` ${w} `));
  const both = `${pathWords}${queryWords}`;
  const always = has(pathWords, ALWAYS_FORBIDDEN);
  if (always) return `the path says “${always}”`;
  const thing = has(both, ACCOUNT_THINGS);
  const change = thing && has(both, ACCOUNT_CHANGES);
  if (thing && change && (has(pathWords, ACCOUNT_THINGS) || has(pathWords, ACCOUNT_CHANGES))) return `the address names the ${thing} and “${change}”`;
  const holding = has(both, HOLDINGS);
  const undo = holding && has(both, UNDOING);
  if (holding && undo && (has(pathWords, HOLDINGS) || has(pathWords, UNDOING))) return `the address names the ${holding} and “${undo}”`;
  return undefined;
}
