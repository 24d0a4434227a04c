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
  | { kind: 'forbidden'; rule: 'forbidden-path' | 'outside-allowed-paths'; reason: string };

interface RequestFacts {
  method: string;
  url: string;
}

/** What the gate knows of the page the run is on when the request leaves. */
export interface PageState {
  /** The work page is a final-review page (the profile's `finalReviewPatterns`). */
  finalReview: boolean;
}

/** The profile's part the classifier reads. */
type RequestPolicy = Pick<PortalProfile, 'riskyWords' | 'submitPaths' | 'forbiddenPaths' | 'allowedPaths'>;

/** Methods that only read: they commit nothing unless their address says so. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** "sign" is a risky word on a button ("Sign the declaration"); in an address these phrases only start or end a session. */
const SESSION_PHRASES = /\bsign (in|on|up|out|off)\b|\blog (in|on|out|off)\b/g;

/**
 * The words of a path or a query as a reader sees them (decoded, then folded like control names:
 * full-width and look-alike letters read as Latin, invisible characters dropped), one space
 * between words and one at each end.
 */
function addressWords(text: string): string {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // A malformed escape is judged as written.
  }
  return ` ${foldForMatching(decoded).replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
}

/**
 * Whether `path` (a URL path) is matched by `pattern`: a path prefix ending at a segment
 * boundary (`/apply/submit` matches `/apply/submit` and `/apply/submit/2`, not `/apply/submitted`),
 * where a `*` segment stands for any one segment (`/applications/*\/withdraw`). Case-insensitive.
 */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.toLowerCase().split('/').filter(Boolean);
  const have = safeDecode(path).toLowerCase().split('/').filter(Boolean);
  if (want.length > have.length) return false;
  return want.every((segment, i) => segment === '*' || segment === have[i]);
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
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

  const forbidden = (profile.forbiddenPaths ?? []).find((pattern) => pathMatches(pattern, path)) ?? accountChangeIn(addressWords(path));
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
  const word = riskyWordInAddress(addressWords(path), profile.riskyWords) ?? riskyWordInAddress(addressWords(url.search), profile.riskyWords);
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

/** Words that name the account itself, and what would change or end it. */
const ACCOUNT_THINGS = ['account', 'profile', 'user', 'users', 'me', 'membership', 'password', 'email', 'mobile', 'phone', 'bank', 'credentials', 'nominee'];
const ACCOUNT_CHANGES = ['delete', 'remove', 'close', 'deactivate', 'cancel', 'terminate', 'erase', 'change', 'update', 'edit', 'reset', 'transfer'];
/** Words that name what the client holds, and what would undo it. */
const HOLDINGS = ['application', 'applications', 'registration', 'registrations', 'licence', 'license', 'connection', 'certificate', 'return', 'returns'];
const UNDOING = ['delete', 'remove', 'cancel', 'withdraw', 'surrender', 'terminate', 'revoke', 'disconnect'];
/** Words that are forbidden wherever they stand in a path. */
const ALWAYS_FORBIDDEN = ['withdraw', 'withdrawal', 'unsubscribe', 'deregister', 'deactivate', 'surrender', 'disconnect'];

/**
 * The forbidden paths every profile has, whatever it lists: an address whose path names the
 * account (account, profile, password…) together with a change to it (delete, close, change…),
 * or what the client holds (application, registration, licence…) together with its undoing
 * (cancel, withdraw, revoke…), or a word such as "withdraw" or "deactivate" on its own.
 */
function accountChangeIn(words: string): string | undefined {
  const has = (list: readonly string[]) => list.find((w) => words.includes(` ${w} `));
  const always = has(ALWAYS_FORBIDDEN);
  if (always) return `the path says “${always}”`;
  const thing = has(ACCOUNT_THINGS);
  const change = thing && has(ACCOUNT_CHANGES);
  if (thing && change) return `the path names the ${thing} and “${change}”`;
  const holding = has(HOLDINGS);
  const undo = holding && has(UNDOING);
  if (holding && undo) return `the path names the ${holding} and “${undo}”`;
  return undefined;
}
