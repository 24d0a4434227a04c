import { createHash } from 'node:crypto';
import { errorMessage } from '../../base/error-text';
import type { CarriedValueOrigin, HeldRequest } from '../../shared/clerk';
import type { PortalProfile } from '../../shared/portal-profile';
import { shorten } from '../../shared/allowed-hosts';
import { classifyRequest, READ_METHODS, requestShape, serverPath, type PageState, type RequestClass } from './request-class';
import { learnedEntry, type LearnableKind, type RequestMapEntry } from '../../shared/request-map';
import type { CarriedFile, CarriedValue } from '../../shared/control-submission';
import type { Action } from '../../shared/action';
import type { Verdict } from '../../shared/verdict';
import { carriedValues } from './request-values';

/**
 * The commit gate: the safety promise held below the page. Every request of a run's context
 * passes here (the page's request routing calls `admit`, the redirect lock `redirect`, the
 * egress proxy `atEgress`, code's own fetches `classify`), and a request that can commit
 * something waits for the clerk's approval of that request, whatever caused it: a planner's
 * action, code's own handling (banners, sign-in, checkpoints), a page script, a redirect, a
 * frame. Forbidden paths are refused even when approved. Approved, a request goes through once.
 *
 * One card per submission, read from the request itself: an action the guard wants the clerk to
 * approve (a click on "Submit application", a goto, a key press) is not asked about before it
 * runs. It runs with `ask` set, and the first request it sends that commits, navigates or sends
 * data is held here and put to the clerk together with the action (method, address, every value
 * with where it came from, each file with its case document, the sha256 of the body). That card
 * approves that one request: any other request the action or the page sends after it, to the same
 * address with another body, or again after the approved one was stopped, is asked about again.
 */

/** A gated action asked about at the gate, with the first request it sends. */
export interface GatedAction {
  action: Action;
  element?: string | undefined;
  verdict: Verdict;
  /** The model's reasoning for the turn (page-derived text). */
  reasoning?: string | undefined;
  /** Told the clerk's answer to the card, once. */
  answered(decision: GateDecision): void;
}

/** What is doing things on the page right now, for the approval card and pre-approval. */
interface Cause {
  step: number;
  /** `click button "Submit application"` */
  description: string;
  /** The clerk approved this action (asked before it ran: an action that sends no request by itself). */
  approved: boolean;
  /** The action waits for the clerk at its first request (see `GatedAction`). */
  ask?: GatedAction;
  /**
   * A take-over: answers which clerk sent a commit request to this address by hand, or null. It
   * is theirs only when a click or key of theirs, just before, aimed at a control that names this
   * address (`ClerkGestures`): then it goes without asking them again, recorded as approved by
   * them. A request the page sends on its own while they hold the portal (a timer, a script
   * reacting to some other click) is not theirs and is asked about like any other. Forbidden
   * paths stay refused, a submission still passes `beforeSubmission` (never a second one
   * unchecked), and no approval of the agent's carries over.
   */
  byHand?: (url: string, carried: readonly CarriedValue[]) => string | null;
}

export interface GateDecision {
  decision: 'approve' | 'deny';
  by: string;
  note?: string;
  /** With an approval: the clerk says this request is a section save (or look-up) of the portal; don't ask again. */
  remember?: LearnableKind;
}

/** What the gate did with one request that was not free, for the step log and the audit trail. */
export interface GateRecord {
  type: 'commit_approved' | 'commit_pre_approved' | 'commit_denied' | 'commit_refused' | 'request_forbidden';
  method: string;
  url: string;
  rule: string;
  /** One line a clerk understands. */
  detail: string;
  submission: boolean;
  step: number | null;
  decision?: GateDecision;
}

/** The run's side of the gate: asks the clerk, says where values come from, checks before a submission. */
interface GateJudge {
  /**
   * Asks the clerk about one held request (with the gated action it is the first request of, if
   * any); `navigating`: it is a document request, so the page stays mid-navigation until it is answered.
   */
  approve(held: HeldRequest, step: number | null, gated: GatedAction | undefined, navigating: boolean): Promise<GateDecision>;
  /** Where a value came from: a case field, a clerk answer, or not from the case. */
  origin(value: string, file?: CarriedFile): { origin: CarriedValueOrigin; field?: string };
  /**
   * Called before an approved submission leaves: answers whether it may (no earlier submission
   * that may have gone through, the progress record written first).
   */
  beforeSubmission(): Promise<{ send: true } | { send: false; reason: string }>;
}

interface AdmitRequest {
  method: string;
  url: string;
  postData: string | null;
  contentType?: string;
  /**
   * The request navigates a frame or the page (a form's own submission, a link): only such a
   * request can be the one an approved control sends, so only it takes the control's pre-approval.
   */
  navigation?: boolean;
  /** The body's bytes, for a multipart form: its files are named on the card with the sha256 of what would leave. */
  postBytes?: Uint8Array;
  /** The address of the frame whose script sent it; absent for documents (see `classifyRequest`). */
  fromFrame?: string | undefined;
  /** Its headers: method overrides (`X-HTTP-Method-Override`) are read from them. */
  headers?: Readonly<Record<string, string>>;
}

/** What the classifier reads of a request beyond its method and address. */
interface RequestDetail {
  headers?: Readonly<Record<string, string>> | undefined;
  postData?: string | null | undefined;
  contentType?: string | undefined;
  postBytes?: Uint8Array | undefined;
  navigation?: boolean | undefined;
}

/**
 * `submission`: an approved submission went; tell `submissionAnswered` when the portal answers it.
 * `committed`: another request the clerk approved went; tell `requestAnswered` with its answer.
 */
type Admission = { ok: true; submission?: true; committed?: true } | { ok: false; reason: string };

/**
 * Which request an answer is to: an approved submission; a request sending data after one (a
 * one-time code confirming it); another request the clerk approved; or any other request that sent
 * data (free by the classifier). Every kind is read for application numbers: a portal that issues
 * two numbers in one run filed two applications, whichever request filed the second.
 */
type AnswerKind = 'submission' | 'after_submission' | 'approved' | 'other';

/** One answer the portal gave: to which request (`POST /x on host`), of which kind, as text (its redirects' addresses and the body it ended on). */
interface PortalAnswer {
  line: string;
  kind: AnswerKind;
  text: string;
}

/** Answers kept, and how long one answer's body is waited for. */
const MAX_ANSWERS = 50;
const ANSWER_WAIT_MS = 10_000;

/** A request the route let through, which the egress proxy will then see: good for this long. */
const TICKET_MS = 15_000;

export class CommitGate {
  private judge: GateJudge | undefined;
  private page: PageState = { finalReview: false };
  private cause: (Cause & { used: boolean }) | undefined;
  private readonly records: GateRecord[] = [];
  private readonly tickets = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private sent = 0;
  private answered = 0;
  /** What the portal answered the requests this run sent data with (see `AnswerKind`). */
  private readonly answers: Promise<PortalAnswer>[] = [];
  private listener: ((record: GateRecord) => void) | undefined;
  /** What the clerk taught the request map (from the store at the start, and during this run). */
  private readonly learned: RequestMapEntry[] = [];
  /** A request that can change state went (the GET rule for unknown addresses starts here). */
  private sentData = false;
  /** `host/path` of the pages opened or redirected to. */
  private readonly seen = new Set<string>();

  constructor(private readonly profile: PortalProfile) {}

  private keepLearned: ((entry: RequestMapEntry, by: string) => void) | undefined;

  /**
   * Entries the clerk taught for this portal before (from the store), and where to keep what the
   * clerk teaches during this run (the store; the step log records it with who taught it).
   */
  learnMap(entries: readonly RequestMapEntry[], keep?: (entry: RequestMapEntry, by: string) => void): void {
    this.learned.push(...entries);
    this.keepLearned = keep;
  }

  /** The run that answers for held requests. Until one is set, every commit request is refused. */
  setJudge(judge: GateJudge): void {
    this.judge = judge;
  }

  /** Called with every record as it is made (the run's step log). */
  onRecord(listener: (record: GateRecord) => void): void {
    this.listener = listener;
  }

  /** What the run last read of its work page. */
  setPage(state: PageState): void {
    this.page = { ...state };
  }

  /** The class of a request right now (pure but for the page state). */
  classify(method: string, url: string, fromFrame?: string, detail: RequestDetail = {}, bodyUnread = false): RequestClass {
    const judge = this.judge;
    // Without a run to say where values come from, none is from the case: no harmless entry fits data.
    const fromCase = judge ? (value: string, file?: CarriedFile) => judge.origin(value, file).origin !== 'not_from_case' : () => false;
    return classifyRequest({ method, url, fromFrame, ...detail }, this.profile, this.page, { learned: this.learned, fromCase, sentData: this.sentData, seen: this.seen, bodyUnread });
  }

  /** Notes where the run has been and whether it sent data, for the GET rule (see `classifyRequest`). */
  private went(method: string, url: string, navigation: boolean): void {
    if (!READ_METHODS.has(method.toUpperCase())) this.sentData = true;
    else if (navigation) this.seen.add(pageKey(url));
  }

  /**
   * Runs `act` with `cause` as what is doing things on the page, and waits until nothing it sent
   * is still held for the clerk: its requests are attributed to it, and its outcome is known once
   * the clerk has answered.
   */
  async during<T>(cause: Cause, act: () => Promise<T>): Promise<T> {
    const previous = this.cause;
    this.cause = { ...cause, used: false };
    try {
      const result = await act();
      await this.idle();
      return result;
    } finally {
      this.cause = previous;
    }
  }

  /** Approved submissions this run sent (in this life of the run). */
  get submissionsSent(): number {
    return this.sent;
  }

  /**
   * Approved submissions the portal answered (a response came back). Only these count as proof
   * that something was submitted: a page can approve-then-abort its own request, and a
   * submission that never left proves nothing.
   */
  get submissionsAnswered(): number {
    return this.answered;
  }

  /**
   * The network lock saw the response to a submission this gate admitted; `answer` is what the
   * portal answered with (the addresses it redirected to and the body it ended on), as text.
   */
  submissionAnswered(line: string, answer: Promise<string>): void {
    this.answered += 1;
    this.keepAnswer(line, 'submission', answer);
  }

  /**
   * The portal answered another request that sent data: one after an approved submission (a portal
   * may ask for a one-time code, then issue the number), one the clerk approved, or a free one.
   */
  requestAnswered(line: string, kind: Exclude<AnswerKind, 'submission'>, answer: Promise<string>): void {
    this.keepAnswer(line, kind, answer);
  }

  private keepAnswer(line: string, kind: AnswerKind, answer: Promise<string>): void {
    if (this.answers.length < MAX_ANSWERS) this.answers.push(withTimeout(answer.catch(() => ''), ANSWER_WAIT_MS).then((text) => ({ line, kind, text })));
  }

  /** Every answer kept so far (each waited for at most ten seconds). */
  async portalAnswers(): Promise<PortalAnswer[]> {
    return Promise.all(this.answers);
  }

  /**
   * Whether the portal's answer to this run's approved submission (or to a request sending data
   * after one, a one-time code confirming it) carries `number`: the portal issued it. A number the
   * page writes itself, reads from a page the portal merely shows (a GET), or that came in answer
   * to any other request, is not in it.
   */
  async answerCarries(number: string): Promise<boolean> {
    const wanted = number.toLowerCase();
    return (await this.portalAnswers()).some((a) => (a.kind === 'submission' || a.kind === 'after_submission') && a.text.toLowerCase().includes(wanted));
  }

  /**
   * Resolves once the requests held now, and those they set off (three rounds deep), are
   * answered. Bounded: a page that keeps sending (a timer posting every 250 ms) cannot keep the
   * run waiting forever; each of its requests is still held and judged on its own.
   */
  async idle(): Promise<void> {
    for (let round = 0; round < 3 && this.pending.size > 0; round++) await Promise.allSettled([...this.pending]);
  }

  /** Records made since the last call (denials end the run; every record goes in the step log). */
  takeRecords(): GateRecord[] {
    return this.records.splice(0);
  }

  /**
   * The page's request routing asks: may this request go? Free requests go at once; forbidden
   * ones never; commit requests wait for the clerk (or the approval of the action that caused them).
   */
  async admit(request: AdmitRequest): Promise<Admission> {
    const judged = this.classify(request.method, request.url, request.fromFrame, { headers: request.headers, postData: request.postData, contentType: request.contentType, postBytes: request.postBytes, navigation: request.navigation });
    // A gated action's first request that navigates or sends data is its card, whatever its class.
    const cause = this.cause;
    const gated = cause?.ask && !cause.used && judged.kind !== 'forbidden' && (judged.kind === 'commit' || request.navigation === true || !READ_METHODS.has(request.method.toUpperCase())) ? cause.ask : undefined;
    if (judged.kind === 'free' && !gated) {
      this.went(request.method, request.url, request.navigation === true);
      // The egress proxy sees this request next, maybe after the page state moved on: it passes there too.
      if (!READ_METHODS.has(request.method.toUpperCase())) this.tickets.set(ticketKey(request.method, request.url), Date.now() + TICKET_MS);
      return { ok: true };
    }
    if (judged.kind === 'forbidden') return this.refuse(judged, request.method, request.url, `Refused ${request.method} ${shorten(request.url)}: ${judged.reason}`);
    const asCommit: Extract<RequestClass, { kind: 'commit' }> =
      judged.kind === 'commit'
        ? judged
        : { kind: 'commit', rule: 'gated-action', submission: false, reason: `${gated?.action.type ?? 'the action'} asks for your approval, and this is the request it sends (${request.method.toUpperCase()} ${shorten(request.url)})` };
    const work = this.hold(request, asCommit, cause?.step ?? null, gated);
    this.pending.add(work);
    try {
      return await work;
    } finally {
      this.pending.delete(work);
    }
  }

  /** A redirect hop never carries an approval: one to a commit or forbidden address is refused. */
  redirect(method: string, location: string): Admission {
    const judged = this.classify(method, location);
    if (judged.kind === 'free') {
      this.seen.add(pageKey(location));
      return { ok: true };
    }
    return this.refuse(judged, method, location, `Refused a redirect to ${method} ${shorten(location)}: ${judged.reason}; a redirect cannot carry the clerk's approval`);
  }

  /**
   * The egress proxy asks about a plain-http request it is about to forward (it sees every
   * request of the context, including those of workers and of pages as they unload, which the
   * page's routing never sees). A commit request passes only with the ticket `admit` left for it.
   */
  atEgress(method: string, url: string, detail?: RequestDetail): Admission {
    const judged = this.classify(method, url, undefined, detail, detail === undefined);
    const key = ticketKey(method, url);
    const until = this.tickets.get(key);
    // A challenge frame's own post was admitted by the page's routing, which alone knows its frame: its ticket stands.
    const ticketed = judged.kind !== 'forbidden' || judged.rule === 'challenge-host';
    if (ticketed && until !== undefined && until >= Date.now()) {
      this.tickets.delete(key);
      return { ok: true };
    }
    if (judged.kind === 'free') return { ok: true };
    return this.refuse(judged, method, url, `Refused ${method} ${shorten(url)} at the egress lock: ${judged.reason}; it did not come through the page's request routing, where the clerk approves such requests`);
  }

  /** Refuses a request that is not free without asking anyone, and records it. */
  private refuse(judged: Exclude<RequestClass, { kind: 'free' }>, method: string, url: string, detail: string): Admission {
    this.record({ type: judged.kind === 'forbidden' ? 'request_forbidden' : 'commit_refused', method, url, rule: judged.rule, detail, submission: false, step: this.cause?.step ?? null });
    return { ok: false, reason: judged.reason };
  }

  private async hold(request: AdmitRequest, judged: Extract<RequestClass, { kind: 'commit' }>, step: number | null, gated: GatedAction | undefined): Promise<Admission> {
    const { method, url } = request;
    const base = { method, url, rule: judged.rule, submission: judged.submission, step };
    const judge = this.judge;
    if (!judge) {
      this.record({ ...base, type: 'commit_refused', detail: `Refused ${method} ${shorten(url)}: ${judged.reason}; no clerk is attached to the run yet` });
      return { ok: false, reason: judged.reason };
    }
    const cause = this.cause;
    // The card is the action's: later requests (the page's, a retry of this one) are asked about on their own.
    if (gated && cause) cause.used = true;
    const carried = carriedValues(url, request.postData, request.contentType, request.postBytes);
    let decision: GateDecision;
    const clerk = cause?.byHand?.(url, carried) ?? null;
    if (clerk) {
      decision = { decision: 'approve', by: `${clerk}, by hand (take-over)` };
    } else {
      const body = request.postBytes ?? (request.postData !== null ? Buffer.from(request.postData, 'utf8') : undefined);
      const held: HeldRequest = {
        method,
        url,
        rule: judged.rule,
        reason: judged.reason,
        cause: gated && cause ? `${cause.description} (step ${cause.step}): the action you are asked about; this is the request it sends` : causeLine(cause),
        values: carried.map(({ file, ...v }) => ({ ...v, ...judge.origin(v.value, file) })),
        ...(body !== undefined && body.byteLength > 0 ? { bodySha256: createHash('sha256').update(body).digest('hex') } : {}),
      };
      try {
        decision = await judge.approve(held, step, gated, request.navigation === true);
      } catch (err) {
        decision = { decision: 'deny', by: 'code', note: `the approval could not be asked (${errorMessage(err)})` };
      }
      try {
        gated?.answered(decision);
      } catch {
        // The action's record is the loop's; the gate's decision stands.
      }
    }
    const taught = decision.decision === 'approve' && decision.remember ? this.teach(request, decision.remember, decision.by) : undefined;
    if (decision.decision === 'deny') {
      this.record({ ...base, type: 'commit_denied', decision, detail: `Denied by ${decision.by}: ${method} ${shorten(url)} was not sent (${judged.reason})` });
      return { ok: false, reason: `denied by ${decision.by}` };
    }
    if (judged.submission) {
      const check = await judge.beforeSubmission().catch((err: unknown) => ({ send: false as const, reason: errorMessage(err) }));
      if (!check.send) {
        this.record({ ...base, type: 'commit_refused', decision, detail: `Not sent: ${method} ${shorten(url)}: ${check.reason}` });
        return { ok: false, reason: check.reason };
      }
      this.sent += 1;
    }
    this.tickets.set(ticketKey(method, url), Date.now() + TICKET_MS);
    this.went(method, url, request.navigation === true);
    this.record({ ...base, type: 'commit_approved', decision, detail: `Sent ${method} ${shorten(url)}, approved by ${decision.by} (${judged.reason})${taught ? `; ${taught}` : ''}` });
    return judged.submission ? { ok: true, submission: true } : { ok: true, committed: true };
  }

  /**
   * The clerk said a held request is a section save (or look-up): the map learns its method, path
   * and shape, unless it carries a value not from the case (then it was sent once, and nothing is
   * learned). Answers what happened, for the record.
   */
  private teach(request: AdmitRequest, kind: LearnableKind, by: string): string {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return 'not learned: the address does not parse';
    }
    const judge = this.judge;
    const fromCase = (value: string, file?: CarriedFile) => (judge ? judge.origin(value, file).origin !== 'not_from_case' : false);
    const shape = requestShape({ method: request.method, url: request.url, headers: request.headers, postData: request.postData, contentType: request.contentType, postBytes: request.postBytes }, url);
    const taught = learnedEntry(shape, kind, fromCase);
    if ('refused' in taught) return `not learned: ${taught.refused}`;
    this.learned.push(taught.entry);
    try {
      this.keepLearned?.(taught.entry, by);
    } catch {
      // Keeping it failed: it still holds for this run.
    }
    return `learned as a ${kind} of this portal (taught by ${by})`;
  }

  private record(record: GateRecord): void {
    this.records.push(record);
    try {
      this.listener?.(record);
    } catch {
      // The listener's failure does not undo what the gate decided.
    }
  }
}

function withTimeout(text: Promise<string>, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(''), ms);
    void text.then((t) => {
      clearTimeout(timer);
      resolve(t);
    });
  });
}

function pageKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${serverPath(u.pathname)}`;
  } catch {
    return url;
  }
}

function ticketKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${withoutHash(url)}`;
}

function withoutHash(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}

/** What the approval card says sent a held request. */
function causeLine(cause: Cause | undefined): string {
  if (!cause) return 'the page itself (a script, a form, a timer or a redirect), not an action of the agent';
  if (cause.byHand) return `the page itself during the take-over (step ${cause.step}): no click or key of yours was aimed at a control sending this, to this address with these values`;
  return `${cause.description} (step ${cause.step}${cause.approved ? ', approved for another request' : cause.ask ? ', whose first request you were asked about already' : ', allowed without approval'})`;
}
