import type { ApprovalDecision, ApprovalRequest } from '../../shared/clerk';
import type { Observation } from '../../shared/observation';
import { PortalProfile, type PortalProfileInput } from '../../shared/portal-profile';
import { isChoosing, RequestMapEntry, TICK_VALUES, type LearnableKind } from '../../shared/request-map';
import type { StepRecord } from '../../shared/run';
import { requestsOf } from '../../shared/step-log';
import { patternProblem } from '../../shared/linear-pattern';
import { serverPath } from '../guard/request-class';

/**
 * A portal profile drafted from one supervised run (`portal-desk portals learn`). The run goes
 * with a profile that knows only the start address (`learningProfile`): its host, an empty
 * request map, no submission address, a confirmation no page can match. The default-deny commit
 * gate then holds every request that can change state and the clerk answers each. From what the
 * run recorded (its steps: observations, events and the egress lock's requests) and the held
 * requests with the clerk's answers (`heldAnswerOf`), `draftProfile` writes the profile:
 *
 * - `allowedHosts`: the hosts the portal's pages and forms used, seen through the egress lock's
 *   log and the pages' addresses; a run can only reach the start host, so a third-party host (an
 *   attack page's form, a tracker) is refused there and listed as left out, never drafted;
 * - `signIn`: the labels of the sign-in form code filled (the page with a password box);
 * - `finalReviewPatterns`: the heading of the page the filing left from;
 * - `confirmation`: the heading of the page the filing led to, and the application number on it
 *   (one the pages had not shown before) written as a pattern (`SHP-\d{4}-\d{6}`);
 * - `submitPaths` and a `submit` map entry: the request the clerk approved as the filing (the
 *   last approved request before the confirmation page);
 * - `requestMap` `save`/`lookup` entries: the other requests the clerk let through that an
 *   action of the run or code sent (a request the page sent on its own is left out), by method,
 *   path (a segment that reads as an id becomes `*`) and field names; the values only of fields
 *   that choose what a request does (`_action: next`) and of ticks; a value the case did not give
 *   (a login, a token) makes its field a page field, never a listed value.
 *
 * Nothing secret enters the draft: every string of it is checked against the case's values and
 * the credentials given (`secrets`); an entry holding one is left out with the reason. The draft
 * passes `PortalProfile.parse`, or the problems say why not.
 */

/** One request the commit gate held, with the clerk's answer: names and origins, never a value from the case or the vault. */
export interface HeldAnswer {
  step: number;
  method: string;
  url: string;
  /** The gate's rule (unmapped-request, final-review-post, risky-address, gated-action…). */
  rule: string;
  /** What sent it, as the gate said. */
  cause: string;
  /** Sent by the page itself (a script, a timer, a redirect), not by an action of the run or code. */
  byPage: boolean;
  /** Each field it carried: its name, whether the case (or the clerk) gave its value, and the value only of a choosing field or a tick not from the case. */
  fields: { name: string; fromCase: boolean; value?: string }[];
  decision: 'approve' | 'deny';
  remember?: LearnableKind;
}

/** What a held request's card carried, kept as the draft needs it: the values of the case and the page's secrets are dropped here. */
export function heldAnswerOf(req: ApprovalRequest, decision: ApprovalDecision): HeldAnswer | undefined {
  const held = req.request ?? req.sends;
  if (!held) return undefined;
  const rule = req.request?.rule ?? req.verdict.rule;
  const cause = req.request?.cause ?? (req.action ? `${req.action.type} ${req.element ?? ''}`.trim() : '');
  return {
    step: req.step,
    method: held.method.toUpperCase(),
    url: held.url,
    rule,
    cause,
    byPage: cause.startsWith('the page itself'),
    fields: held.values.map((v) => {
      // An empty value (a box left empty when a draft was saved) is no one's: the field is the form's, like a case field.
      const fromCase = v.origin !== 'not_from_case' || v.value === '';
      const keep = !fromCase && (isChoosing(v.name) || TICK_VALUES.has(v.value.toLowerCase()));
      return { name: v.name, fromCase, ...(keep ? { value: v.value } : {}) };
    }),
    decision: decision.decision,
    ...(decision.remember ? { remember: decision.remember } : {}),
  };
}

/** A placeholder no page shows: the learning run's profile does not know the confirmation page yet. */
const UNKNOWN_CONFIRMATION = 'portal-desk: confirmation page not learned yet';

/**
 * The profile of a learning run: the start address and its host, nothing else. Every request
 * that can change state is held (no map, no submission address), and no page counts as a
 * confirmation, so the run cannot end `done`: it ends when the agent has nothing left to do.
 */
export function learningProfile(id: string, startUrl: string, name = id): PortalProfile {
  const url = new URL(startUrl);
  return PortalProfile.parse({
    id,
    name: `${name} (learning)`,
    startUrl: url.href,
    allowedHosts: [url.host],
    allowHttp: url.protocol === 'http:',
    confirmation: { applicationNumberPattern: '[^\\s\\S]', pageContains: UNKNOWN_CONFIRMATION },
  });
}

/** What the draft is made from. */
interface DraftInput {
  /** The learning profile as the lead gave it (its start URL and host as written). */
  given: PortalProfile;
  /** The start URL the run actually opened (the lab binds a port): its host reads as the given one. */
  boundStartUrl: string;
  steps: readonly StepRecord[];
  held: readonly HeldAnswer[];
  /** Values that must never enter the draft: the case's values, the login. */
  secrets: readonly string[];
}

/** One drafted entry and where it came from, for the summary. */
interface DraftNote {
  entry: string;
  from: string;
}

export interface ProfileDraft {
  /** The drafted profile, as it would be written (null when the run saw too little to draft one). */
  profile: PortalProfileInput | null;
  notes: DraftNote[];
  /** What the run saw that was left out of the draft, and why. */
  left: string[];
  /** Why the draft is not a profile yet (empty when it is). */
  problems: string[];
}

/** Secrets shorter than this are not searched for (a "12" or a "yes" is everywhere). */
const MIN_SECRET = 4;

export function draftProfile(input: DraftInput): ProfileDraft {
  const notes: DraftNote[] = [];
  const left: string[] = [];
  const problems: string[] = [];
  const given = input.given;
  const givenHost = given.allowedHosts[0]!;
  const bound = new URL(input.boundStartUrl).host;
  const asGiven = (host: string) => (host.toLowerCase() === bound.toLowerCase() ? givenHost : host.toLowerCase());
  const secrets = input.secrets.map((s) => s.trim().toLowerCase()).filter((s) => s.length >= MIN_SECRET);
  const secretIn = (text: string) => secrets.some((s) => text.toLowerCase().includes(s));
  const steps = [...input.steps].sort((a, b) => a.index - b.index);
  // A page's address is named with its id-like segments as `*`: a confirmation's address can hold the client's number.
  const where = (s: StepRecord) => `step ${s.index}, page “${pageName(s.observation)}” (${generalPath(pathOf(s.observation.url))})`;

  // Hosts: what the egress lock let through and the pages' addresses; refusals are listed, never drafted.
  const hosts = new Map<string, string>();
  const refused = new Map<string, string>();
  for (const s of steps) {
    const pageHost = hostOf(s.observation.url);
    if (pageHost && !hosts.has(asGiven(pageHost))) hosts.set(asGiven(pageHost), `the page at ${where(s)}`);
    for (const r of s.requests ?? []) {
      const host = r.port === null || r.port === 80 || r.port === 443 ? r.host : `${r.host}:${r.port}`;
      if (r.outcome === 'sent' && !hosts.has(asGiven(host))) hosts.set(asGiven(host), `${r.method} ${r.path ?? ''} let through at step ${s.index}`);
    }
    // What the locks stopped, as the requests pane reads it (the browser's own background noise counted apart).
    for (const line of requestsOf(s.events, s.requests).lines) {
      // A navigation lock's line names the host only in its words ("Stopped the page going to x.example:8080").
      const url = line.url ?? /\bgoing to ([A-Za-z0-9.-]+(?::\d+)?)/.exec(line.message)?.[1];
      if (line.outcome === 'sent' || !url) continue;
      const host = hostOf(url.includes('://') ? url : `http://${url}`);
      if (host && !refused.has(host)) refused.set(host, `${line.method ?? 'a request'} ${line.url ? pathOf(line.url) : '(a page)'} stopped at step ${s.index} (${line.rule})`);
    }
  }
  const allowedHosts = [...hosts.keys()].filter((h) => h === givenHost);
  for (const h of hosts.keys()) if (h !== givenHost) left.push(`host ${h}: not the start address's host (${hosts.get(h)})`);
  for (const [h, why] of refused) if (!hosts.has(asGiven(h))) left.push(`host ${h}: ${why}; a host the portal's own pages did not use is never drafted`);
  if (allowedHosts.length === 0) allowedHosts.push(givenHost);
  notes.push({ entry: `allowedHosts: ${allowedHosts.join(', ')}`, from: hosts.get(givenHost) ?? 'the start address' });

  // The applications list: a link on the portal's host that names the applications (the portal's own page, read before any retried submission).
  let applicationsUrl: string | undefined;
  for (const s of steps) {
    const link = s.observation.controls.find((c) => c.role === 'link' && /\bapplications\b/i.test(c.name) && c.href !== undefined && sameHost(c.href, bound) && !/[?#]/.test(c.href));
    if (!link) continue;
    const url = new URL(pathOf(link.href!), given.startUrl).href;
    if (secretIn(url)) continue;
    applicationsUrl = url;
    notes.push({ entry: `applicationsUrl: ${url}`, from: `the link “${link.name}” at ${where(s)}` });
    break;
  }

  // Sign-in: the first page with a password box.
  let signIn: PortalProfileInput['signIn'];
  const signInStep = steps.find((s) => s.observation.hasPasswordField);
  if (signInStep) {
    const o = signInStep.observation;
    const user = o.controls.find((c) => c.role === 'textbox' && c.inputType !== 'password' && c.name.trim() !== '');
    const password = o.controls.find((c) => c.inputType === 'password');
    const submit = o.controls.find((c) => c.role === 'button' && /\b(sign|log) ?in\b|\blogin\b|\bcontinue\b/i.test(c.name)) ?? o.controls.find((c) => c.role === 'button' && c.name.trim() !== '');
    const path = pathOf(o.url);
    const candidate = {
      ...(path !== '/' && /sign|log|auth|account/i.test(path) ? { urlContains: path } : {}),
      usernameLabel: user?.name.trim() || 'Username',
      passwordLabel: password?.name.trim() || 'Password',
      submitLabel: submit?.name.trim() || 'Sign in',
    };
    if (Object.values(candidate).some(secretIn)) left.push(`sign-in labels at ${where(signInStep)}: they hold a value of the case or the login`);
    else {
      signIn = candidate;
      notes.push({ entry: `signIn: ${candidate.urlContains ? `page ${candidate.urlContains}, ` : ''}“${candidate.usernameLabel}”, “${candidate.passwordLabel}”, button “${candidate.submitLabel}”`, from: `the sign-in form code filled at ${where(signInStep)}` });
    }
  } else {
    left.push('sign-in: the run met no page with a password box; the default labels stand');
  }

  // The filing: the last approved request that the run's actions sent before the page changed to the confirmation.
  const approved = input.held.filter((h) => h.decision === 'approve');
  const fromActions = approved.filter((h) => !h.byPage && sameHost(h.url, bound));
  for (const h of approved) {
    if (h.byPage) left.push(`${h.method} ${pathOf(h.url)} on ${asGiven(hostOf(h.url) ?? '')}: sent by the page itself (${h.cause}), not by a form the run filled`);
    else if (!sameHost(h.url, bound)) left.push(`${h.method} ${h.url}: not on the portal's host`);
  }
  for (const h of input.held.filter((x) => x.decision === 'deny')) left.push(`${h.method} ${pathOf(h.url)}: denied by the clerk at step ${h.step}`);
  const filing = findFiling(fromActions, steps);
  let submitPath: string | undefined;
  let finalReview: { pattern: string; from: string } | undefined;
  let confirmation: { pageContains: string; applicationNumberPattern: string; from: string } | undefined;
  if (!filing) {
    problems.push('no filing found: the run sent no approved request after which a new page showed an application number (did the clerk approve the submission?)');
  } else {
    submitPath = generalPath(serverPath(new URL(filing.held.url).pathname));
    notes.push({ entry: `submitPaths: ${submitPath}; requestMap: ${filing.held.method} ${submitPath} (submit)`, from: `the request the clerk approved as the filing at step ${filing.held.step} (${filing.held.cause})` });
    const reviewStep = steps.filter((s) => s.index <= filing.held.step).at(-1);
    const reviewLine = reviewStep ? pageName(reviewStep.observation) : undefined;
    if (reviewStep && reviewLine && !secretIn(reviewLine)) {
      finalReview = { pattern: reviewLine.toLowerCase(), from: `the page the filing left from, ${where(reviewStep)}` };
    } else if (reviewStep) left.push(`final-review pattern at ${where(reviewStep)}: its heading holds a value of the case; the defaults stand`);
    const c = filing.confirmation;
    const heading = confirmationHeading(c.step.observation, c.number);
    if (heading && secretIn(heading)) problems.push(`the confirmation page's heading at ${where(c.step)} holds a value of the case; write confirmation.pageContains by hand`);
    const pattern = numberPattern(c.number);
    if (heading && !secretIn(heading)) confirmation = { pageContains: heading, applicationNumberPattern: pattern, from: `the page the filing led to, ${where(c.step)}, which showed the new number ${shape(c.number)}` };
    else if (!heading) problems.push(`the confirmation page at ${where(c.step)} has no heading or title to know it by`);
  }

  // Section saves and look-ups the clerk let through (everything approved from an action, but the filing).
  const map: RequestMapEntry[] = [];
  const mapFrom = new Map<RequestMapEntry, string[]>();
  for (const h of fromActions) {
    if (h === filing?.held) continue;
    if (filing && pathOf(h.url) === pathOf(filing.held.url)) continue;
    const entry = entryOf(h);
    if (typeof entry === 'string') {
      left.push(`${h.method} ${pathOf(h.url)} at step ${h.step}: ${entry}`);
      continue;
    }
    if (secretIn(JSON.stringify(entry))) {
      left.push(`${h.method} ${pathOf(h.url)} at step ${h.step}: its path or a listed value holds a value of the case or the login`);
      continue;
    }
    const same = map.find((e) => e.method === entry.method && e.path === entry.path && e.kind === entry.kind);
    if (same) {
      merge(same, entry);
      mapFrom.get(same)!.push(`step ${h.step}`);
    } else {
      map.push(entry);
      mapFrom.set(entry, [`step ${h.step} (${h.cause})`]);
    }
  }
  // A form's buttons choose the same way on every section ("Save draft", "Save and continue"): each
  // section's save accepts the choosing values the run saw on any save of the same form (same parent path).
  for (const e of map.filter((x) => x.kind === 'save')) {
    for (const other of map.filter((x) => x !== e && x.kind === 'save' && x.method === e.method && parentOf(x.path) === parentOf(e.path))) {
      for (const [name, vs] of Object.entries(other.values ?? {})) {
        if (!isChoosing(name) || !e.values?.[name]) continue;
        const all = [...new Set([...e.values[name]!, ...vs])];
        if (all.length > e.values[name]!.length) mapFrom.get(e)!.push(`${name}=${vs.filter((v) => !e.values![name]!.includes(v)).join('|')} as seen on ${other.path}`);
        e.values[name] = all;
      }
    }
  }
  for (const e of map) notes.push({ entry: `requestMap: ${e.method} ${e.path} (${e.kind}${e.fields ? `; fields ${e.fields.join(', ') || 'none'}` : ''}${Object.entries(e.values ?? {}).map(([n, v]) => `; ${n}=${v.join('|')}`).join('')}${e.pageFields?.length ? `; page fields ${e.pageFields.join(', ')}` : ''})`, from: `the clerk let it through at ${mapFrom.get(e)!.join(', ')}` });

  if (!confirmation) {
    return { profile: null, notes, left, problems: problems.length ? problems : ['no confirmation page found'] };
  }
  const requestMap: RequestMapEntry[] = [...(submitPath && filing ? [{ method: filing.held.method as RequestMapEntry['method'], path: submitPath, kind: 'submit' as const }] : []), ...map];
  const draft: PortalProfileInput = {
    id: given.id,
    name: given.name.replace(/ \(learning\)$/, ''),
    startUrl: given.startUrl,
    allowedHosts,
    allowHttp: given.allowHttp,
    ...(finalReview ? { finalReviewPatterns: [finalReview.pattern] } : {}),
    ...(signIn ? { signIn } : {}),
    ...(applicationsUrl ? { applicationsUrl } : {}),
    confirmation: { applicationNumberPattern: confirmation.applicationNumberPattern, pageContains: confirmation.pageContains },
    submitPaths: submitPath ? [submitPath] : [],
    requestMap,
  };
  if (finalReview) notes.push({ entry: `finalReviewPatterns: “${finalReview.pattern}”`, from: finalReview.from });
  notes.push({ entry: `confirmation: page “${confirmation.pageContains}”, number ${confirmation.applicationNumberPattern}`, from: confirmation.from });

  // Last line: nothing of the case or the login anywhere in what would be written.
  const leak = secrets.find((s) => JSON.stringify(draft).toLowerCase().includes(s));
  if (leak !== undefined) problems.push('the draft holds a value of the case or the login; it is not offered (a bug: report it)');
  const parsed = PortalProfile.safeParse(draft);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return { profile: leak === undefined ? draft : null, notes, left, problems };
}

/** The filing and the confirmation page it led to. */
function findFiling(approved: readonly HeldAnswer[], steps: readonly StepRecord[]): { held: HeldAnswer; confirmation: { step: StepRecord; number: string } } | undefined {
  for (const held of [...approved].reverse()) {
    if (READS.has(held.method) || !FILING_RULES.has(held.rule)) continue;
    const before = steps.filter((s) => s.index <= held.step);
    const seen = new Set(before.flatMap((s) => numbersIn(s.observation)));
    for (const s of steps.filter((x) => x.index > held.step)) {
      const fresh = numbersIn(s.observation).filter((n) => !seen.has(n));
      if (fresh.length > 0) return { held, confirmation: { step: s, number: fresh[0]! } };
    }
  }
  return undefined;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Why a filing is held under default deny: it leaves the final-review page, its address says
 * submit, or the guard asked about the action that sent it (a click on "Submit application"). A
 * section save the agent's "Next" sends is held as unmapped, and is never taken for the filing.
 */
const FILING_RULES = new Set(['final-review-post', 'risky-address', 'submit-path', 'gated-action']);

/** Tokens that read as reference numbers: letters, digits and separators, with at least four digits. */
function numbersIn(o: Observation): string[] {
  const found: string[] = [];
  for (const text of [...o.headings, o.title, o.text]) {
    for (const m of text.matchAll(/\b[A-Z0-9][A-Z0-9/_-]{4,38}[A-Z0-9]\b/g)) {
      const token = m[0];
      if ((token.match(/\d/g) ?? []).length >= 4 && /[A-Z/_-]/.test(token) && !/^\d{4}-\d{2}-\d{2}$/.test(token)) found.push(token);
    }
  }
  return [...new Set(found)];
}

/** `SHP-2026-000123` → `SHP-\d{4}-\d{6}`: letters as written, digits as counted digits, separators escaped. */
export function numberPattern(number: string): string {
  const out = number.replace(/\d+|[A-Za-z]+|[^A-Za-z\d]/g, (part) => (/^\d+$/.test(part) ? `\\d{${part.length}}` : /^[A-Za-z]+$/.test(part) ? part : `\\${part}`.replace(/^\\([-_])$/, '$1')));
  return patternProblem(out) === undefined ? out : number.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The number's shape for the summary (never the number itself: it is the client's). */
function shape(number: string): string {
  return number.replace(/\d/g, '9');
}

/** The heading that names the confirmation page: its first heading without the number, or its title. */
function confirmationHeading(o: Observation, number: string): string | undefined {
  for (const line of [...o.headings, o.title]) {
    const text = line.replace(number, '').replace(/[\s:–-]+$/u, '').trim();
    if (text.length >= 4) return text;
  }
  return undefined;
}

function pageName(o: Observation): string {
  return (o.headings[0] ?? o.title).trim();
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

function sameHost(url: string, host: string): boolean {
  return hostOf(url) === host.toLowerCase();
}

/** A path segment that reads as an id (digits in it, or a long token) becomes `*`: the next run's draft has another. */
function generalPath(path: string): string {
  const encoded = path.replace(/[^A-Za-z0-9._~/-]/gu, (c) => [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  return `/${encoded.split('/').filter(Boolean).map((seg) => (/\d{2,}/.test(seg) || (seg.length >= 20 && /\d/.test(seg)) ? '*' : seg)).join('/')}`;
}

/** The map entry a let-through request becomes, or why it does not. */
function entryOf(h: HeldAnswer): RequestMapEntry | string {
  const method = h.method;
  if (!['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) return `a ${method} request is not drafted`;
  const kind = h.remember ?? (READS.has(method) ? 'lookup' : 'save');
  const fields = [...new Set(h.fields.map((f) => f.name))];
  const values: Record<string, string[]> = {};
  const pageFields: string[] = [];
  for (const f of h.fields) {
    if (f.fromCase) continue;
    if (f.value !== undefined) values[f.name] = [...new Set([...(values[f.name] ?? []), f.value])];
    else if (!pageFields.includes(f.name)) pageFields.push(f.name);
  }
  const parsed = RequestMapEntry.safeParse({
    method,
    path: generalPath(serverPath(pathOf(h.url))),
    kind,
    fields,
    ...(Object.keys(values).length ? { values } : {}),
    ...(pageFields.length ? { pageFields } : {}),
  });
  return parsed.success ? parsed.data : `not a map entry (${parsed.error.issues[0]?.message ?? 'invalid'})`;
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

function merge(into: RequestMapEntry, more: RequestMapEntry): void {
  into.fields = [...new Set([...(into.fields ?? []), ...(more.fields ?? [])])];
  for (const [name, vs] of Object.entries(more.values ?? {})) {
    into.values = { ...(into.values ?? {}), [name]: [...new Set([...(into.values?.[name] ?? []), ...vs])] };
  }
  const pages = [...new Set([...(into.pageFields ?? []), ...(more.pageFields ?? [])])];
  if (pages.length) into.pageFields = pages;
}
