import { z } from 'zod';
import { Action } from './action';
import type { CarriedValue } from './control-submission';
import { LearnableKind } from './request-map';
import { CommitRuleName, Verdict } from './verdict';
import { invisibleCount, showInvisible } from './visible-text';

/** Where a value a held request carries came from: a case field, a clerk's answer, or neither. */
export const CarriedValueOrigin = z.enum(['case', 'clerk', 'not_from_case']);
export type CarriedValueOrigin = z.infer<typeof CarriedValueOrigin>;

/**
 * On a final-review page: each value the page says it will submit, beside the case value it came
 * from. `same`; `differs` (the page shows another value than the case has); `not_in_case` (no case
 * field or clerk answer matches the row).
 */
export const ReviewRow = z.object({
  label: z.string(),
  pageValue: z.string(),
  field: z.string().optional(),
  caseValue: z.string().optional(),
  match: z.enum(['same', 'differs', 'not_in_case']),
});
export type ReviewRow = z.infer<typeof ReviewRow>;

/**
 * A request the commit gate holds for the clerk: it can commit something (a submission, a
 * payment, a deletion), whatever caused it (an action, code's own handling, a page script).
 */
export const HeldRequest = z.object({
  method: z.string(),
  url: z.string(),
  /** The gate's rule: submit-path, unmapped-request, other-shape, get-sends-data, risky-address…; gated-action for the first request of an action the guard asks the clerk about. */
  rule: CommitRuleName,
  reason: z.string(),
  /** What sent it: `click button "Next" (step 4)`, or "the page itself (a script, a form or a redirect)". */
  cause: z.string(),
  /** Every value it carries, with where it came from; hidden fields show as not from the case. */
  values: z.array(z.object({ name: z.string(), value: z.string(), origin: CarriedValueOrigin, field: z.string().optional() })),
  /**
   * The sha256 of the body exactly as it would leave (hex), absent for a request with no body:
   * the approval is of this body, to this method and address; another body is asked about again.
   */
  bodySha256: z.string().optional(),
  /**
   * A submission (or a request leaving a final-review page): the values the portal's review page
   * showed it will file, compared with the case field by field, read by the run from its last look
   * at that page (no separate read). A value can reach the portal's records through an earlier
   * request, so a difference here matters even when the request itself carries only case values.
   */
  review: z.array(ReviewRow).optional(),
});
export type HeldRequest = z.infer<typeof HeldRequest>;

/** `POST /apply/submit on shops.portal.example` for cards, prompts and logs. */
export function heldRequestLine(request: Pick<HeldRequest, 'method' | 'url'>): string {
  try {
    const url = new URL(request.url);
    return `${request.method} ${url.pathname}${url.search.length > 80 ? `${url.search.slice(0, 79)}…` : url.search} on ${url.host}`;
  } catch {
    return `${request.method} ${request.url.slice(0, 120)}`;
  }
}

/** The held request's method and whole address, with invisible and direction-changing characters shown (for cards and prompts). */
export function heldAddress(request: Pick<HeldRequest, 'method' | 'url'>): string {
  return `${showInvisible(request.method)} ${showInvisible(request.url)}`;
}

/** One row of a card's values: the value whole, invisible characters shown; where it came from in words. */
interface CardValue {
  /** The form field (for a file: the box it goes into). */
  name: string;
  value: string;
  /** `case field full_name`, `case document pan_card`, `your answer: phone`, `not from the case`. */
  source: string;
  notFromCase: boolean;
  /** Characters in the value a reader could not see or that turn text around (shown as marks). */
  invisible: number;
}

/** What a held request carries, as the card and the terminal show it: every value whole, each with its provenance. */
export function cardValues(request: Pick<HeldRequest, 'values'>): CardValue[] {
  return request.values.map((v) => ({
    name: showInvisible(v.name),
    value: showInvisible(v.value),
    source:
      v.origin === 'case' ? (v.field?.startsWith('document ') ? `case ${v.field}` : `case field ${v.field ?? ''}`.trim()) : v.origin === 'clerk' ? `your answer${v.field ? `: ${v.field}` : ''}` : 'not from the case',
    notFromCase: v.origin === 'not_from_case',
    invisible: invisibleCount(v.name) + invisibleCount(v.value),
  }));
}

/** The review rows that are not the case's (a different value, or one the case does not have), in words for a card or prompt. */
export function reviewDifferences(request: Pick<HeldRequest, 'review'>): string[] {
  return (request.review ?? [])
    .filter((r) => r.match !== 'same')
    .map((r) => (r.match === 'differs' ? `${showInvisible(r.label)}: the review page says "${showInvisible(r.pageValue)}", the case says "${showInvisible(r.caseValue ?? '')}"` : `${showInvisible(r.label)}: "${showInvisible(r.pageValue)}" is not from the case`));
}

/** A gated action, or a held request, waiting for the clerk. */
export const ApprovalRequest = z.object({
  runId: z.string(),
  step: z.number().int().nonnegative(),
  /** The proposed action; absent when the request below was not caused by one. */
  action: Action.optional(),
  /** Set when the commit gate holds a request (the action, if any, is what caused it). */
  request: HeldRequest.optional(),
  element: z.string().optional(),
  /**
   * For a click on a link or a submit button: what it would send as the clerk is asked, read in
   * the page (hidden fields too), each value with where it came from. Its one request goes
   * without asking again only when it carries exactly these values.
   */
  sends: HeldRequest.pick({ method: true, url: true, values: true }).optional(),
  verdict: Verdict,
  /** The model's reasoning for the turn that proposed the action (page-derived text: show it as data). */
  reasoning: z.string().optional(),
  /** `route`: the turn came from the learned route (its recorded step), not from the model. */
  reasoningFrom: z.literal('route').optional(),
  /** PNG of the page when the approval was asked for, base64 (for the approval card). */
  screenshotBase64: z.string().optional(),
  /**
   * PNG of the whole page as the clerk is asked (the gated step's picture, taken before the action
   * ran), base64. The console keeps it for the card's scrolling picture and never sends it on.
   */
  fullPageBase64: z.string().optional(),
  /** When the wait for the clerk runs out (ISO time): the card and the queue count down to it; run out, nothing is sent and the run stops resumable. */
  expiresAt: z.string().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/**
 * The clerk's answer to a card. A held request's card offers three: send once (`approve`), "a
 * section save (or look-up) of this portal: don't ask again" (`approve` with `remember`: the
 * portal's request map learns the request's method, path and shape, unless it carries a value
 * not from the case), and `deny`.
 */
export const ApprovalDecision = z.object({
  decision: z.enum(['approve', 'deny']),
  by: z.string().min(1),
  note: z.string().optional(),
  remember: LearnableKind.optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** What the run needs typed by the clerk. `otp` and `security_answer` are secrets: masked everywhere. */
export const InputKind = z.enum(['otp', 'missing_value', 'security_answer', 'confirmation']);
export type InputKind = z.infer<typeof InputKind>;

export const InputRequest = z.object({
  runId: z.string(),
  step: z.number().int().nonnegative(),
  kind: InputKind,
  question: z.string(),
  field: z.string().nullable(),
  /** What the portal said about the last answer (`The verification code is incorrect`): the clerk is asked again. */
  problem: z.string().optional(),
  /** When the code the portal sent stops working (ISO time), where the page says how long it lasts. */
  expiresAt: z.string().optional(),
  /** The portal offers to send a new code: the clerk may answer RESEND_CODE instead of a code. */
  canResend: z.boolean().optional(),
});

/** The clerk's answer to a one-time-code question that asks the portal for a new code instead. */
export const RESEND_CODE = '\u0000resend-code';
export type InputRequest = z.infer<typeof InputRequest>;

export const SECRET_INPUT_KINDS: readonly InputKind[] = ['otp', 'security_answer'];

/**
 * The clerk works the portal by hand in the run's own guarded session (the same context: egress
 * lock, downloads off, forbidden paths refused), then hands it back and the same run goes on from
 * a fresh read of the page. `bot_check`: the portal wants a human (the agent never solves one);
 * `clerk`: the clerk asked to take over.
 */
export const TakeOverRequest = z.object({
  runId: z.string(),
  step: z.number().int().nonnegative(),
  reason: z.enum(['bot_check', 'clerk']),
  /** What the page shows, for the card: `a CAPTCHA frame (www.google.example)`. */
  detail: z.string(),
});
export type TakeOverRequest = z.infer<typeof TakeOverRequest>;

/** How a take-over ended: handed back (the run goes on), or declined (a bot check then ends the run `blocked`). */
export const TakeOverEnd = z.object({
  handedBack: z.boolean(),
  by: z.string().min(1),
  note: z.string().optional(),
  /** When the clerk took the portal, if they did (ISO time). */
  takenAt: z.string().optional(),
});
export type TakeOverEnd = z.infer<typeof TakeOverEnd>;

/** The clerk's side of a take-over. */
export interface TakeOverDesk {
  /**
   * Parks the run until the clerk hands the portal back or declines. `taken` is called once when a
   * clerk holds the portal (at once for a take-over they asked for; when they take an offered one):
   * the run then opens the profile's challenge hosts. A desk that cannot tell never calls it.
   */
  takeOver(req: TakeOverRequest, taken?: () => void): Promise<TakeOverEnd>;
  /** The clerk asked to take this run over: the loop hands the portal over before its next read. */
  wantsTakeOver(runId: string): boolean;
  /**
   * Who sent this commit request by hand: the clerk holding the run's portal, when a click or key
   * of theirs just before aimed at a control that sends this request — its address, and exactly
   * the values it carries, as the control held them before the press was played (each gesture
   * answers once); null otherwise (nobody holds the portal, or the page sent it on its own, or
   * changed what the control sends after the press).
   */
  claimByHand(runId: string, url: string, carried: readonly CarriedValue[]): string | null;
}

/** The clerk's side of a run: the engine asks through these ports, the shell answers. */
export interface ApprovalGate {
  request(req: ApprovalRequest): Promise<ApprovalDecision>;
}
export interface InputSource {
  /** Resolves with the clerk's answer, or null when the clerk declines. */
  ask(req: InputRequest): Promise<string | null>;
}
