import { z } from 'zod';
import { ApprovalRequest, InputKind, InputRequest, ReviewRow, TakeOverRequest } from './clerk';

export { ReviewRow };
import { RunRecord, RunStatus, StepRecord } from './run';

/**
 * The console's API contract: the one protocol between the console UI (React renderer) and
 * the console service, whether it crosses Electron IPC (preload → main) or a loopback
 * WebSocket (the browser console). Every message is validated on both sides with these schemas.
 */

export const CaseSummary = z.object({
  /** Path of the case file, relative to the cases folder. */
  file: z.string(),
  caseId: z.string(),
  clientId: z.string(),
  portal: z.string(),
  task: z.string(),
  /** Set when the file does not parse: the one-line reason. */
  problem: z.string().optional(),
  /** The client's name for people (the business or person the case is for). */
  displayName: z.string().optional(),
});
export type CaseSummary = z.infer<typeof CaseSummary>;

export const PortalSummary = z.object({
  id: z.string(),
  name: z.string(),
  startUrl: z.string(),
  allowedHosts: z.array(z.string()),
  riskyWords: z.array(z.string()),
  lab: z.boolean(),
  /** A lab portal whose layout the clerk chooses at start (the console's own lab; not one another process runs). */
  layouts: z.boolean().default(false),
});
export type PortalSummary = z.infer<typeof PortalSummary>;

export const CredentialSummary = z.object({
  clientId: z.string(),
  portal: z.string(),
  username: z.string(),
  updatedAt: z.string(),
});
export type CredentialSummary = z.infer<typeof CredentialSummary>;

export const ModelStatus = z.object({
  planner: z.enum(['rules', 'anthropic']),
  model: z.string().optional(),
  keyPresent: z.boolean(),
  baseURL: z.string().optional(),
});
export type ModelStatus = z.infer<typeof ModelStatus>;

/** The store's verify answer as it is: what held (and what the chain covers and cannot prove), or where it broke and which field. */
export const VerifyResult = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    format: z.union([z.literal(1), z.literal(2)]),
    steps: z.number().int(),
    headHash: z.string().nullable(),
    checkedScreenshots: z.number().int(),
    /** Screenshots purged by retention: the chain keeps their hash, their bytes are gone. */
    purgedScreenshots: z.number().int(),
    events: z.number().int().optional(),
    records: z.number().int().optional(),
    /** What the chain covers, one line each. */
    covers: z.array(z.string()),
    /** What an intact chain does not prove. */
    cannot: z.string(),
  }),
  z.object({
    ok: z.literal(false),
    format: z.union([z.literal(1), z.literal(2)]).optional(),
    brokenStep: z.number().int(),
    problem: z.string(),
    /** What broke: genesis, step, event, screenshot, run or head. */
    where: z.enum(['genesis', 'step', 'event', 'screenshot', 'run', 'head']).optional(),
    /** For a broken run record: the field whose value the chain does not hold. */
    field: z.string().optional(),
  }),
]);
export type VerifyResult = z.infer<typeof VerifyResult>;

/**
 * A take-over of the run's portal by the clerk. `offered`: the run waits for the clerk (a bot
 * check); `asked`: the clerk asked and the run hands the portal over before its next read;
 * `active`: the clerk has the portal (the live view forwards mouse, keyboard and scroll).
 */
export const TakeOverView = TakeOverRequest.extend({
  state: z.enum(['offered', 'asked', 'active']),
  takenAt: z.string().optional(),
});
export type TakeOverView = z.infer<typeof TakeOverView>;


/** What an approval will do, read from the page when it was asked: for the card. */
export const ApprovalDetail = z.object({
  /** The approval it belongs to (its step). */
  step: z.number().int(),
  /** A full-page picture exists (fetch it with approvalPicture). */
  fullPage: z.boolean(),
  /** The page is a final-review page and these are its values; null elsewhere. */
  review: z.array(ReviewRow).nullable(),
});
export type ApprovalDetail = z.infer<typeof ApprovalDetail>;

/** What a live run is doing before its first step: starting the browser, opening the portal, signing in by code, reading the page. */
export const RunPhase = z.enum(['starting_browser', 'opening_portal', 'signing_in', 'reading_page', 'deciding', 'acting', 'waiting_portal']);
export type RunPhase = z.infer<typeof RunPhase>;

/** A run as the console shows it: the record plus what it waits for. */
export const RunView = z.object({
  run: RunRecord,
  pendingApproval: ApprovalRequest.nullable(),
  pendingInput: InputRequest.nullable(),
  pendingTakeOver: TakeOverView.nullable().default(null),
  approvalDetail: ApprovalDetail.nullable().default(null),
  /** Set while the run is live in this console. */
  phase: RunPhase.nullable().default(null),
  /** The case's display name (the case file's `name`, else its client's). */
  displayName: z.string().optional(),
});
export type RunView = z.infer<typeof RunView>;

/**
 * One input of the clerk in the live view. x and y are fractions (0..1) of the picture's width and
 * height; keys are KeyboardEvent.key names (`a`, `Enter`, `Backspace`) with the modifiers held.
 */
export const ClerkInputEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('mouse'),
    action: z.enum(['move', 'down', 'up', 'click']),
    x: z.number().min(0).max(1),
    y: z.number().min(0).max(1),
    button: z.enum(['left', 'middle', 'right']).default('left'),
  }),
  z.object({ type: z.literal('wheel'), x: z.number().min(0).max(1), y: z.number().min(0).max(1), deltaX: z.number().min(-5000).max(5000), deltaY: z.number().min(-5000).max(5000) }),
  z.object({
    type: z.literal('key'),
    key: z.string().min(1).max(32),
    modifiers: z.array(z.enum(['Alt', 'Control', 'Meta', 'Shift'])).max(4).default([]),
  }),
  z.object({ type: z.literal('text'), text: z.string().min(1).max(200) }),
]);
export type ClerkInputEvent = z.infer<typeof ClerkInputEvent>;

/**
 * One case of a queue the clerk started: `waiting` (not started: its turn has not come, or another
 * run of its client and portal is in progress), `running`, `waiting_clerk` (its run waits for an
 * approval, a code, an answer or a take-over), `done`, `not_done` (failed, blocked, interrupted, or
 * refused before it ran: `reason` says why).
 */
const QueueEntryState = z.enum(['waiting', 'running', 'waiting_clerk', 'done', 'not_done']);


export const QueueEntry = z.object({
  /** The case file, relative to the cases folder. */
  file: z.string(),
  caseId: z.string(),
  clientId: z.string(),
  portal: z.string(),
  displayName: z.string().optional(),
  state: QueueEntryState,
  /** One line on where it is (why it waits, what its run waits for, how it ended). */
  reason: z.string(),
  runId: z.string().optional(),
  /** What a running case's run is doing now (starting the browser, signing in, reading the page…). */
  phase: RunPhase.optional(),
  /** A case waiting for the clerk: when that wait runs out (the queue counts down to it). */
  waitExpiresAt: z.string().optional(),
});
export type QueueEntry = z.infer<typeof QueueEntry>;

/** A day's queue: case files run as a batch, at most `concurrency` at once, one run per client and portal at a time. */
export const QueueView = z.object({
  id: z.string(),
  /** What the clerk chose: a folder, or how many case files. */
  label: z.string(),
  concurrency: z.number().int().positive(),
  planner: z.enum(['rules', 'anthropic']),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  entries: z.array(QueueEntry),
});
export type QueueView = z.infer<typeof QueueView>;

/** One human wait of the office (a row any desk's console answers; the first answer wins). */
export const OfficeWaitView = z.object({
  id: z.string(),
  /** `take_over`: a bot check paused the run; only a clerk at its desk can take the portal over (there). */
  kind: z.union([z.literal('approval'), z.literal('take_over'), InputKind]),
  runId: z.string(),
  step: z.number().int(),
  caseId: z.string().optional(),
  clientId: z.string().optional(),
  /** The desk whose run waits (it holds the browser), and its name for people. */
  deskId: z.string(),
  deskName: z.string(),
  /** True when the run waiting is this console's own. */
  thisDesk: z.boolean(),
  /** What is asked, in one line (an approval: the action or the held request; an input: the question). */
  question: z.string(),
  /** Why the guard asks, for approvals. */
  reason: z.string().optional(),
  /** A code or a security answer: typed, never shown, wiped from the office database once read. */
  secret: z.boolean(),
  createdAt: z.string(),
});
export type OfficeWaitView = z.infer<typeof OfficeWaitView>;

/** The office (PORTAL_DESK_DATABASE_URL): whether this console has joined its queue, and what waits for a clerk. */
export const OfficeView = z.object({
  /** An office database is configured for this console. */
  configured: z.boolean(),
  /** This console takes cases from the office queue. */
  joined: z.boolean(),
  deskId: z.string().optional(),
  slots: z.number().int().nonnegative(),
  /** Cases on the office queue: waiting to be taken, and running at some desk. */
  queued: z.number().int().nonnegative(),
  active: z.number().int().nonnegative(),
  waits: z.array(OfficeWaitView),
  /** The last thing that went wrong talking to the office database, for the panel. */
  problem: z.string().optional(),
});
export type OfficeView = z.infer<typeof OfficeView>;

/** Requests from the UI, each with its response schema. */
export const ConsoleMethods = {
  listCases: { params: z.object({}), result: z.array(CaseSummary) },
  startRun: {
    params: z.object({ file: z.string().min(1), planner: z.enum(['rules', 'anthropic']).default('rules'), layout: z.enum(['original', 'redesigned']).optional() }),
    result: z.object({ runId: z.string() }),
  },
  listRuns: { params: z.object({ status: RunStatus.optional() }), result: z.array(RunView) },
  getRun: { params: z.object({ runId: z.string() }), result: RunView },
  listSteps: { params: z.object({ runId: z.string() }), result: z.array(StepRecord) },
  getScreenshot: { params: z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/) }), result: z.object({ pngBase64: z.string().nullable() }) },
  decide: {
    params: z.object({ runId: z.string(), decision: z.enum(['approve', 'deny']), note: z.string().max(500).optional() }),
    result: z.object({ accepted: z.boolean() }),
  },
  answer: {
    params: z.object({ runId: z.string(), value: z.string().max(500).nullable() }),
    result: z.object({ accepted: z.boolean() }),
  },
  verifyRun: { params: z.object({ runId: z.string() }), result: VerifyResult },
  /** The console's process writes the report owner-only (0600) and says where; the renderer never holds the file. */
  exportRun: { params: z.object({ runId: z.string() }), result: z.object({ fileName: z.string(), savedTo: z.string(), bytes: z.number().int().nonnegative() }) },
  listPortals: { params: z.object({}), result: z.array(PortalSummary) },
  listCredentials: { params: z.object({}), result: z.array(CredentialSummary) },
  setCredential: {
    params: z.object({ clientId: z.string().min(1), portal: z.string().min(1), username: z.string().min(1), password: z.string().min(1) }),
    result: z.object({ saved: z.boolean() }),
  },
  removeCredential: { params: z.object({ clientId: z.string().min(1), portal: z.string().min(1) }), result: z.object({ removed: z.boolean() }) },
  modelStatus: { params: z.object({}), result: ModelStatus },
  /** The clerk takes the run's portal (at once when the run waits for it, else before its next read). */
  takeOver: { params: z.object({ runId: z.string() }), result: z.object({ accepted: z.boolean() }) },
  /** Ends a take-over: `hand_back` (the run goes on from a fresh read) or `decline` (a bot check ends the run blocked). */
  handBack: {
    params: z.object({ runId: z.string(), decision: z.enum(['hand_back', 'decline']), note: z.string().max(500).optional() }),
    result: z.object({ accepted: z.boolean() }),
  },
  /** Mouse, keyboard and scroll from the live view to the portal page, only while the clerk has it. */
  takeOverInput: { params: z.object({ runId: z.string(), events: z.array(ClerkInputEvent).min(1).max(50) }), result: z.object({ accepted: z.boolean() }) },
  /** Continues an interrupted run (the console closed, the portal stopped answering) under the same id. */
  resumeRun: { params: z.object({ runId: z.string() }), result: z.object({ runId: z.string() }) },
  /** The clerk asks the portal for a new one-time code (where the pending code question offers it). */
  resendCode: { params: z.object({ runId: z.string() }), result: z.object({ accepted: z.boolean() }) },
  /** The full-page picture taken when the run's pending approval was asked. */
  approvalPicture: { params: z.object({ runId: z.string() }), result: z.object({ pngBase64: z.string().nullable() }) },
  /** Runs case files (or every case file of a folder) as a queue, at most `concurrency` at once, one run per client and portal at a time. */
  startQueue: {
    params: z
      .object({
        files: z.array(z.string().min(1)).min(1).max(200).optional(),
        folder: z.string().optional(),
        concurrency: z.number().int().min(1).max(6).default(2),
        planner: z.enum(['rules', 'anthropic']).default('rules'),
      })
      .refine((p) => (p.files === undefined) !== (p.folder === undefined), { message: 'name either files or a folder' }),
    result: QueueView,
  },
  listQueues: { params: z.object({}), result: z.array(QueueView) },
  /** The office queue and its waits (configured: false when no office database is set). */
  officeStatus: { params: z.object({}), result: OfficeView },
  /** This console joins the office queue (takes cases as "portal-desk worker" does) or leaves it (running cases finish first). */
  joinOffice: { params: z.object({ join: z.boolean(), slots: z.number().int().min(1).max(4).default(1), planner: z.enum(['rules', 'anthropic']).default('rules') }), result: OfficeView },
  /** Answers an office wait: an approval's decision, or a typed value (null declines). The first answer wins. */
  answerOfficeWait: {
    params: z.object({ id: z.string().regex(/^\d+$/), decision: z.enum(['approve', 'deny']).optional(), value: z.string().max(500).nullable().optional(), note: z.string().max(500).optional() }),
    result: z.object({ accepted: z.boolean() }),
  },
} as const;

export type ConsoleMethod = keyof typeof ConsoleMethods;
type ConsoleParams<M extends ConsoleMethod> = z.input<(typeof ConsoleMethods)[M]['params']>;
export type ConsoleResult<M extends ConsoleMethod> = z.infer<(typeof ConsoleMethods)[M]['result']>;

/** What the UI calls: one typed function per method. */
export type ConsoleApi = {
  [M in ConsoleMethod]: (params: ConsoleParams<M>) => Promise<ConsoleResult<M>>;
};

/** Pushed from the service to the UI as runs progress. */
export const ConsoleEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run'), view: RunView }),
  z.object({ type: z.literal('step'), runId: z.string(), step: StepRecord }),
  z.object({ type: z.literal('frame'), runId: z.string(), jpegBase64: z.string() }),
  z.object({ type: z.literal('queue'), queue: QueueView }),
  z.object({ type: z.literal('office'), office: OfficeView }),
]);
export type ConsoleEvent = z.infer<typeof ConsoleEvent>;

/** Wire envelopes (WebSocket / IPC). */
export const ConsoleRequestEnvelope = z.object({ id: z.number().int(), method: z.string(), params: z.unknown() });
export const ConsoleResponseEnvelope = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string() }),
]);
export const ConsoleEventEnvelope = z.object({ event: ConsoleEvent });

/**
 * What the Electron preload exposes as `window.portalDesk`: the API, one function per method,
 * plus the event feed (the IPC counterpart of the WebSocket's event envelopes).
 */
export type ConsoleBridge = ConsoleApi & {
  onEvent(listener: (event: ConsoleEvent) => void): () => void;
};
