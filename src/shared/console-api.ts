import { z } from 'zod';
import { ApprovalRequest, InputRequest } from './clerk';
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
});
export type CaseSummary = z.infer<typeof CaseSummary>;

export const PortalSummary = z.object({
  id: z.string(),
  name: z.string(),
  startUrl: z.string(),
  allowedHosts: z.array(z.string()),
  riskyWords: z.array(z.string()),
  lab: z.boolean(),
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

/** A run as the console shows it: the record plus what it waits for. */
export const RunView = z.object({
  run: RunRecord,
  pendingApproval: ApprovalRequest.nullable(),
  pendingInput: InputRequest.nullable(),
});
export type RunView = z.infer<typeof RunView>;

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
  exportRun: { params: z.object({ runId: z.string() }), result: z.object({ html: z.string(), fileName: z.string() }) },
  listPortals: { params: z.object({}), result: z.array(PortalSummary) },
  listCredentials: { params: z.object({}), result: z.array(CredentialSummary) },
  setCredential: {
    params: z.object({ clientId: z.string().min(1), portal: z.string().min(1), username: z.string().min(1), password: z.string().min(1) }),
    result: z.object({ saved: z.boolean() }),
  },
  removeCredential: { params: z.object({ clientId: z.string().min(1), portal: z.string().min(1) }), result: z.object({ removed: z.boolean() }) },
  modelStatus: { params: z.object({}), result: ModelStatus },
} as const;

export type ConsoleMethod = keyof typeof ConsoleMethods;
export type ConsoleParams<M extends ConsoleMethod> = z.input<(typeof ConsoleMethods)[M]['params']>;
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
