import { isChallengeUrl } from '../../shared/allowed-hosts';
import type { PortalProfile } from '../../shared/portal-profile';
import type { CommitRuleName } from '../../shared/verdict';
import { foldForMatching, riskyWordIn } from './rules/risky-words';
import { entryFits, type CaseCheck, type RequestMapEntry, type RequestShape } from '../../shared/request-map';
import { MAX_VALUES } from '../../shared/control-submission';
import { carriedValues } from './request-values';

/**
 * What a request can do to the client's affairs, judged from the request alone (method, address,
 * headers and body), never from the button, link, script or code that caused it:
 * - `forbidden`: it would change the account itself (delete or close it, withdraw or void an
 *   application, change the profile or password), or the map names it forbidden. Refused, even
 *   with the clerk's approval.
 * - `commit`: it can change state and the portal's request map does not name it harmless (or
 *   names it a submission or payment). Held until the clerk approves this request.
 * - `free`: reading a page, or a request the map names a `save` or `lookup` in exactly its shape.
 *
 * **Default deny.** A request can change state when its method is not GET, HEAD or OPTIONS, or a
 * method override says so (`_method` in the query or body, `X-HTTP-Method-Override`,
 * `X-HTTP-Method`, `X-Method-Override`), or it runs a GraphQL mutation (read from the JSON body or
 * the query), whatever sent it: a form post, a fetch, a beacon or keepalive, a `<a ping>`. Such a
 * request is free only when an entry of the map (`src/shared/request-map.ts`: the profile's
 * `requestMap`, then what the clerk taught) names its method, path and shape harmless; a known
 * path with another shape (`action=submit` to a learned save path, another GraphQL operation, a
 * field the entry does not name, a value not from the case) is unknown, and waits.
 *
 * **GETs that can file or void.** A GET is free unless:
 * - the map names it `submit` or `payment` (held) or `forbidden` (refused);
 * - its query carries a value from the case (it sends data): held unless a `lookup` entry names
 *   that shape;
 * - its address says a filing or voiding word (`finish`, `finalise`, `lodge`, `void`, `destroy`,
 *   `rescind`…; the forbidden-word rules, the second line): held or refused;
 * - it navigates a page (a click, a goto, our own code) after the run has sent data, to a path
 *   the map does not name and the run has not been on before (neither opened nor redirected
 *   to): held, since a "Finish" link to a new address can file the saved draft.
 * Redirect hops the portal answers with are not navigations of ours: they are judged by the rest.
 *
 * **WebSockets.** What a socket carries cannot be judged message by message, so a socket opens
 * only at an address the map names with method `WEBSOCKET` as `save` or `lookup`; any other
 * socket is refused (never held: there is no one request to show the clerk).
 *
 * The forbidden-word and risky-word rules stay as a second line: a map entry cannot make free an
 * address whose words say submit, pay, delete or withdraw.
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
  /** Its headers (names in any case): method overrides are read from them. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Its body as text, where known: overrides, GraphQL operations and the shape are read from it. */
  postData?: string | null | undefined;
  contentType?: string | undefined;
  /** A multipart body's bytes: its files are read by their hash. */
  postBytes?: Uint8Array | undefined;
  /** It navigates a frame or the page (a link, a goto, a form), not a redirect hop or a subresource. */
  navigation?: boolean | undefined;
}

/** What the gate knows of the page the run is on when the request leaves. */
export interface PageState {
  /** The work page is a final-review page (the profile's `finalReviewPatterns`). */
  finalReview: boolean;
}

/** What the run knows beyond the profile: the map the clerk taught, the case, where it has been. */
export interface RunFacts {
  /** Entries the clerk taught for this portal (after the profile's own). */
  learned?: readonly RequestMapEntry[];
  /** Whether a value is from the case or the clerk; without it, values are not checked. */
  fromCase?: CaseCheck;
  /** The run has sent a request that can change state (a save went). */
  sentData?: boolean;
  /** `host/path` (server path) of the pages the run has been on: opened, or redirected to. */
  seen?: ReadonlySet<string>;
  /** The body could not be read (the egress lock): no harmless entry fits a request that sends data. */
  bodyUnread?: boolean;
}

/** The profile's part the classifier reads. */
type RequestPolicy = Pick<PortalProfile, 'name' | 'allowedHosts' | 'allowHttp' | 'challengeHosts' | 'riskyWords' | 'submitPaths' | 'forbiddenPaths' | 'allowedPaths'> & {
  requestMap?: readonly RequestMapEntry[] | undefined;
};

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
 * egress proxy, code's own fetches). Pure: reads the request, the profile, the page state and
 * what the run knows (`RunFacts`). An address that does not parse is refused as forbidden (the
 * host locks refuse it anyway).
 */
export function classifyRequest(request: RequestFacts, profile: RequestPolicy, page: PageState, run: RunFacts = {}): RequestClass {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { kind: 'forbidden', rule: 'forbidden-path', reason: 'the address does not parse' };
  }
  const shape = requestShape(request, url);
  const sent = request.method.toUpperCase();
  const method = shape.method;
  const path = url.pathname;
  const shown = `${sent === method ? method : `${sent} (as ${method})`} ${path}`;
  const sendsData = method === 'WEBSOCKET' || !READ_METHODS.has(method) || !READ_METHODS.has(sent) || shape.graphql?.type === 'mutation' || shape.graphql?.type === 'subscription';

  if (profile.challengeHosts.length > 0 && isChallengeUrl(url.href, profile).ok) return challengeRequest(sendsData ? 'POST' : 'GET', url, request.fromFrame, profile);

  const entries = [...(profile.requestMap ?? []), ...(run.learned ?? [])];
  const fits = entries.map((entry) => ({ entry, fit: entryFits(entry, shape, run.fromCase) }));
  const fitting = (kind: string) => fits.find((f) => f.entry.kind === kind && f.fit.fit === 'match');

  const known = knownWords(profile.riskyWords);
  const pathWords = addressWords(serverPath(path), known);
  const queryWords = addressWords(url.search, known);
  const forbiddenEntry = fitting('forbidden');
  const forbidden = (profile.forbiddenPaths ?? []).find((pattern) => pathMatches(pattern, path)) ?? (forbiddenEntry ? `the request map names ${forbiddenEntry.entry.method} ${forbiddenEntry.entry.path} forbidden` : undefined) ?? accountChangeIn(pathWords, queryWords);
  if (forbidden) {
    return { kind: 'forbidden', rule: 'forbidden-path', reason: `${shown} is a forbidden path (${forbidden}): it changes the account or undoes an application, so Portal Desk never sends it, approved or not` };
  }
  if (profile.allowedPaths && profile.allowedPaths.length > 0 && !profile.allowedPaths.some((pattern) => pathMatches(pattern, path))) {
    return { kind: 'forbidden', rule: 'outside-allowed-paths', reason: `${shown} is outside the paths the portal profile allows (${profile.allowedPaths.join(', ')})` };
  }
  const submitPaths = profile.submitPaths ?? [];
  const declaresSubmission = submitPaths.length > 0 || entries.some((e) => e.kind === 'submit');
  const submitEntry = fitting('submit');
  const submitPath = submitPaths.find((pattern) => pathMatches(pattern, path));
  if (submitEntry || submitPath) {
    return { kind: 'commit', rule: 'submit-path', submission: true, reason: `${shown} is the portal's submission address (${submitEntry ? submitEntry.entry.path : submitPath}): it sends the application` };
  }
  const paymentEntry = fitting('payment');
  if (paymentEntry) return { kind: 'commit', rule: 'payment-path', submission: false, reason: `${shown} is the portal's payment address (${paymentEntry.entry.path}): it pays` };
  const word = riskyWordInAddress(pathWords, profile.riskyWords) ?? riskyWordInAddress(queryWords, profile.riskyWords) ?? filingWordIn(pathWords);
  if (word) {
    const submission = !declaresSubmission && /\bsubmit\b/i.test(word);
    return { kind: 'commit', rule: 'risky-address', submission, reason: `the address of ${shown} says “${word}”: the clerk approves that request before it is sent` };
  }
  const harmless = sendsData && run.bodyUnread ? undefined : fits.find((f) => (f.entry.kind === 'save' || f.entry.kind === 'lookup') && f.fit.fit === 'match');
  const otherShape = fits.find((f) => (f.entry.kind === 'save' || f.entry.kind === 'lookup') && f.fit.fit === 'other-shape');
  const otherShapeWhy = otherShape && otherShape.fit.fit === 'other-shape' ? `; the map knows ${otherShape.entry.method} ${otherShape.entry.path} as a ${otherShape.entry.kind}, but ${otherShape.fit.why}` : '';
  if (method === 'WEBSOCKET') {
    if (harmless) return { kind: 'free' };
    return { kind: 'commit', rule: 'unmapped-request', submission: false, reason: `a WebSocket to ${url.host}${path} would carry messages no one can judge, and the request map names no socket there` };
  }
  if (!sendsData) {
    if (harmless) return { kind: 'free' };
    const caseValue = run.fromCase ? shape.pairs.find((p) => p.value !== '' && run.fromCase?.(p.value, p.file)) : undefined;
    if (caseValue) {
      return { kind: 'commit', rule: 'get-sends-data', submission: false, reason: `${shown} carries the case's value in “${caseValue.name}”: a GET whose query carries case values sends data, and the request map names no look-up of that shape${otherShapeWhy}` };
    }
    const address = `${url.host}${serverPath(path)}`;
    if (request.navigation && run.sentData && !run.seen?.has(address) && !fits.some((f) => f.fit.fit !== 'none')) {
      return { kind: 'commit', rule: 'unknown-get-after-save', submission: false, reason: `${shown} opens an address the run has not been on and the request map does not name, after the form saved data: a link such as “Finish” can file what was saved` };
    }
    return { kind: 'free' };
  }
  if (harmless) return { kind: 'free' };
  if (page.finalReview) {
    return { kind: 'commit', rule: 'final-review-post', submission: !declaresSubmission, reason: `${shown} leaves a final-review page, where one request sends the application` };
  }
  if (otherShape) return { kind: 'commit', rule: 'other-shape', submission: false, reason: `${shown} sends data${otherShapeWhy}: a known path with another shape waits for the clerk` };
  const what = shape.graphql?.type === 'mutation' ? `runs the GraphQL mutation ${shape.graphql.name ?? '(anonymous)'}` : sent !== method ? `asks the server to act as ${method}` : 'sends data';
  return {
    kind: 'commit',
    rule: 'unmapped-request',
    submission: false,
    reason: `${shown} ${what}, and the portal's request map does not name it harmless: every request that can change state waits for the clerk unless the map names it (a section save or look-up can be taught from this card)`,
  };
}

/**
 * Why a profile's harmless map entry cannot stand, or undefined: the request it names (a `*`
 * segment read as any one word) is one the forbidden rules refuse, or one whose address says a
 * risky word (the second line holds it anyway, so the entry would promise what the gate does not do).
 */
export function mapEntryProblem(entry: RequestMapEntry, profile: RequestPolicy): string | undefined {
  if (entry.kind !== 'save' && entry.kind !== 'lookup') return undefined;
  const host = entry.host ?? profile.allowedHosts[0] ?? 'portal.invalid';
  const url = `${profile.allowHttp ? 'http' : 'https'}://${host}${entry.path.replace(/\*/g, 'x')}`;
  const judged = classifyRequest({ method: entry.method === 'WEBSOCKET' ? 'GET' : entry.method, url }, { ...profile, requestMap: [], submitPaths: [] }, { finalReview: false });
  if (judged.kind === 'forbidden') return `${entry.method} ${entry.path} is named a ${entry.kind}, but it overlaps a forbidden rule (${judged.reason})`;
  if (judged.kind === 'commit' && judged.rule === 'risky-address') return `${entry.method} ${entry.path} is named a ${entry.kind}, but ${judged.reason.replace(/: the clerk approves.*$/, '')}, so the gate holds it anyway`;
  return undefined;
}

/** Headers that ask a server to act as another method. */
const OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'];
/** Body and query fields that ask a server to act as another method. */
const OVERRIDE_FIELDS = new Set(['_method', '__method', 'x-http-method-override']);
/** The GraphQL fields of a request that are the operation, not data. */
const GRAPHQL_FIELDS = new Set(['query', 'operationname', 'extensions', 'variables', 'id', 'documentid']);

/**
 * What a request carries and what it asks the server to do: its effective method (an override
 * wins over what was sent, and a write wins over a read), host, server path, every field of the
 * query and body (a GraphQL request's variables instead of its document), and its GraphQL
 * operation. A body with more fields than are read carries a field named `(too many fields)`, so
 * no harmless entry's shape fits it.
 */
export function requestShape(request: RequestFacts, url: URL): RequestShape {
  const sent = request.method.toUpperCase();
  let pairs: RequestShape['pairs'] = carriedValues(url.href, request.postData ?? null, request.contentType, request.postBytes);
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const overrides = [...OVERRIDE_HEADERS.map((h) => headers[h]), ...pairs.filter((p) => OVERRIDE_FIELDS.has(p.name.toLowerCase())).map((p) => p.value)]
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((v) => v.trim().toUpperCase());
  const writes = overrides.filter((m) => !READ_METHODS.has(m));

  const graphql = graphqlOf(url, request.postData ?? null, request.contentType);
  if (graphql) {
    pairs = [...pairs.filter((p) => !GRAPHQL_FIELDS.has(p.name.toLowerCase())), ...graphql.variables];
  }
  if (pairs.length >= MAX_VALUES) pairs = [...pairs, { name: '(too many fields)', value: '' }];
  // An override to a write wins; one to a read never makes a write a read.
  const method = sent !== 'WEBSOCKET' && writes[0] !== undefined ? writes[0] : sent;
  return { method, host: url.host, path: serverPath(url.pathname), pairs, ...(graphql ? { graphql: graphql.operation } : {}) };
}

/**
 * The GraphQL operation a request runs, read from a JSON body (`{query, operationName,
 * variables}`, or a batch of them) or the query (`?query=…`), with its variables as fields. A
 * request whose document cannot be read (a persisted query's hash only) counts as a mutation.
 */
function graphqlOf(url: URL, body: string | null, contentType: string | undefined): { operation: NonNullable<RequestShape['graphql']>; variables: { name: string; value: string }[] } | undefined {
  const documents: { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown }[] = [];
  if (body && (contentType ?? '').toLowerCase().includes('json')) {
    try {
      const parsed: unknown = JSON.parse(body);
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) if (item && typeof item === 'object') documents.push(item as (typeof documents)[number]);
    } catch {
      // Not JSON: not GraphQL either.
    }
  } else if (body && (contentType ?? '').toLowerCase().includes('graphql')) {
    documents.push({ query: body });
  }
  const queryParam = url.searchParams.get('query');
  if (queryParam !== null && /^\s*(query|mutation|subscription|fragment|\{)/.test(stripComments(queryParam))) {
    documents.push({ query: queryParam, operationName: url.searchParams.get('operationName') ?? undefined });
  }
  const operations = documents.filter((d) => typeof d.query === 'string' || (typeof d.operationName === 'string' && d.extensions !== undefined));
  if (operations.length === 0) return undefined;
  let type: 'query' | 'mutation' | 'subscription' = 'query';
  let name: string | undefined;
  const variables: { name: string; value: string }[] = [];
  for (const op of operations) {
    const text = typeof op.query === 'string' ? stripComments(op.query) : undefined;
    const opName = typeof op.operationName === 'string' ? op.operationName : undefined;
    const kinds = text === undefined ? ['mutation'] : [...text.matchAll(/(?:^|[}\s])(query|mutation|subscription)\b/g)].map((m) => m[1]);
    if (kinds.includes('mutation')) type = 'mutation';
    else if (kinds.includes('subscription') && type !== 'mutation') type = 'subscription';
    const declared = text ? /(?:query|mutation|subscription)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(text)?.[1] : undefined;
    const here = opName ?? declared;
    // A batch, or a document whose name is not the one asked for, is named by no single entry.
    name = operations.length === 1 && (!opName || !declared || text?.includes(opName)) ? here : undefined;
    if (op.variables && typeof op.variables === 'object') {
      for (const [key, value] of Object.entries(op.variables as Record<string, unknown>)) variables.push({ name: key, value: typeof value === 'string' ? value : JSON.stringify(value) });
    }
  }
  return { operation: { type, ...(name ? { name } : {}) }, variables };
}

function stripComments(text: string): string {
  return text.replace(/#[^\n]*/g, ' ').replace(/"""[\s\S]*?"""|"(?:[^"\\]|\\.)*"/g, '""');
}

/** Words in a path that file or finish an application, or void what was filed: held whatever the method. */
const FILING_WORDS = ['finish', 'finalise', 'finalize', 'finalisation', 'finalization', 'lodge', 'lodgement', 'file', 'complete', 'void', 'destroy', 'rescind', 'annul', 'nullify', 'revoke'];

function filingWordIn(pathWords: string): string | undefined {
  return FILING_WORDS.find((w) => pathWords.includes(` ${w} `));
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
const UNDOING = ['delete', 'remove', 'cancel', 'withdraw', 'surrender', 'terminate', 'revoke', 'disconnect', 'void', 'destroy', 'rescind', 'annul', 'nullify'];
/** Words that are forbidden wherever they stand in a path. */
const ALWAYS_FORBIDDEN = ['withdraw', 'withdrawal', 'unsubscribe', 'deregister', 'deactivate', 'surrender', 'disconnect', 'rescind', 'destroy', 'annul', 'nullify'];
/** Short words that run between those in an address (`deletemyaccount`, `unsubscribeall`, `paynow`). */
const GLUE = ['my', 'all', 'now', 'the', 'this', 'and', 'to', 'do'];
const CLASSIFIER_WORDS = [...FILING_WORDS, ...ACCOUNT_THINGS, ...ACCOUNT_CHANGES, ...HOLDINGS, ...UNDOING, ...ALWAYS_FORBIDDEN, ...GLUE];

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
