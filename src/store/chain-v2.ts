import { canonicalJson, digest, sha256Hex } from '../base/canonical-json';
import { FINAL_STATUSES, StepRecord, type TokenUsage } from '../shared/run';
import { CANNOT_PROVE, screenshotHashOf, short, stepHash, type RunIdentity, type ScreenshotState, type StoredStep, type VerifyResult } from './chain';

/**
 * Tamper evidence, chain format 2: everything a report or replay shows is in ONE ordered log of
 * records per run, each hashed onto the one before.
 *
 *   genesisHash  = sha256(canonicalJson(genesis))
 *                  genesis = { chain: 2, id, caseId, clientId, portal, task, startedAt, planner,
 *                              approveMode, layout?, model?, caseJsonSha256 }
 *                  (caseJsonSha256 covers the case copy and the portal profile the run started with)
 *   record(pos)  = a step:  sha256(prev + '\n' + canonicalJson(step) + '\n' + (step.screenshotHash ?? ''))
 *                  an event: sha256(prev + '\n' + canonicalJson(event) + '\n')
 *                  event = { record: 'event', runId, pos, at, type, fromStatus?, toStatus?, reason?, detail?, pid?, set? }
 *                  prev is genesisHash for pos 0 and record(pos - 1) after it
 *   headHash     = record(last pos)
 *
 * `set` carries the values an event gave the run (status, reason, applicationNumber, endedAt,
 * model, caseJsonSha256), so the run record's fields are checked against the last chained value
 * of each. The `outcome` event (written when a run reaches a final status) also holds the token
 * usage and step count (checked against the steps before it) and the receipt's sha256; no step
 * may follow it (its receipt sha256 must be the one a step's `receipt` event kept). A step's after
 * and full-page pictures are named in its JSON (afterScreenshotHash, fullPageHash) and checked
 * like its before picture. A `purged` event names the screenshots it removed: a screenshot without bytes
 * that no purge names was removed outside retention.
 */
export const CHAIN_V2_DEFINITION =
  'genesisHash = sha256(canonicalJson({chain: 2, id, caseId, clientId, portal, task, startedAt, planner, approveMode, layout?, model?, caseJsonSha256})); ' +
  "records in pos order, steps and audit events alike: hash = sha256(prevHash + '\\n' + canonicalJson(record) + '\\n' + (step.screenshotHash ?? '')), " +
  "an event being {record: 'event', runId, pos, at, type, fromStatus?, toStatus?, reason?, detail?, pid?, set?}; headHash = the last record's hash. " +
  "Run fields (status, reason, applicationNumber, endedAt, model, case copy) equal the last value an event's set gave them; usage and step count equal the steps' sums. " +
  'canonicalJson = JSON with object keys sorted recursively and no whitespace; hashes are lower-case hex.';

const CHAIN_V2_COVERS = [
  "the run's identity, planner, approval mode, layout and model",
  'the case copy and portal profile the run started with (by sha256), and every later change to the case copy (clerk answers)',
  'every step: page read, reasoning, actions, guard verdicts, approvals, step events (requests judged, page errors), the requests the egress lock let through and refused, and each of its pictures by sha256 (before, after, and full page at a gated step)',
  'every audit-trail event, with the values it set (status, reason, application number, end time)',
  "the final outcome record: status, reason, application number, end time, token usage, step count, receipt sha256 (the one the receipt step kept)",
  'every purge, naming the screenshots it removed (a screenshot gone without one fails)',
];

/** The run's facts fixed at its start; layout and model only when the run has them. */
interface GenesisRecord extends RunIdentity {
  chain: 2;
  planner: string;
  approveMode: string;
  layout?: string;
  model?: string;
  caseJsonSha256: string;
}

export function genesisRecord(
  run: RunIdentity & Pick<GenesisRecord, 'planner' | 'approveMode'> & { layout?: string | null; model?: string | null; caseJson: string },
): GenesisRecord {
  const g: GenesisRecord = {
    chain: 2,
    id: run.id,
    caseId: run.caseId,
    clientId: run.clientId,
    portal: run.portal,
    task: run.task,
    startedAt: run.startedAt,
    planner: run.planner,
    approveMode: run.approveMode,
    caseJsonSha256: sha256Hex(run.caseJson),
  };
  if (run.layout != null) g.layout = run.layout;
  if (run.model != null) g.model = run.model;
  return g;
}

/** An audit-trail event as the chain hashes it (no seq: SQLite assigns that; no hash: it is the result). */
export interface ChainedEvent {
  runId: string;
  pos: number;
  at: string;
  type: string;
  fromStatus?: string;
  toStatus?: string;
  reason?: string;
  detail?: Record<string, unknown>;
  pid?: number;
  set?: Record<string, unknown>;
}

export function eventChainJson(e: ChainedEvent): string {
  return canonicalJson({
    record: 'event',
    runId: e.runId,
    pos: e.pos,
    at: e.at,
    type: e.type,
    fromStatus: e.fromStatus,
    toStatus: e.toStatus,
    reason: e.reason,
    detail: e.detail,
    pid: e.pid,
    set: e.set,
  });
}

export function eventHash(prevHash: string, eventJson: string): string {
  return sha256Hex(`${prevHash}\n${eventJson}\n`);
}

/** The run fields the chain tracks through events' `set`. */
const TRACKED_FIELDS = ['status', 'reason', 'applicationNumber', 'endedAt', 'model', 'caseJsonSha256'] as const;
type TrackedField = (typeof TRACKED_FIELDS)[number];

/** The run as its record (a database row or an export's `run`) claims it is. */
interface ClaimedRun extends RunIdentity {
  planner: string;
  approveMode: string;
  layout: string | null;
  model: string | null;
  status: string;
  reason: string | null;
  applicationNumber: string | null;
  endedAt: string | null;
  caseJson: string;
  stepCount: number;
  usage: TokenUsage;
  headHash: string | null;
  /** The store's count of records; exports do not carry one. */
  recordCount?: number;
}

type Absent = 'layout' | 'model' | 'reason' | 'applicationNumber' | 'endedAt' | 'headHash';

/** A run as a RunRecord holds it (a field it lacks is absent, not null): the store's row read back, or an export's `run`. */
type RecordedRun = Omit<ClaimedRun, Absent | 'recordCount'> & { [K in Absent]?: string };

export function claimedRun(r: RecordedRun, recordCount: number): ClaimedRun {
  return {
    id: r.id,
    caseId: r.caseId,
    clientId: r.clientId,
    portal: r.portal,
    task: r.task,
    startedAt: r.startedAt,
    planner: r.planner,
    approveMode: r.approveMode,
    layout: r.layout ?? null,
    model: r.model ?? null,
    status: r.status,
    reason: r.reason ?? null,
    applicationNumber: r.applicationNumber ?? null,
    endedAt: r.endedAt ?? null,
    caseJson: r.caseJson,
    stepCount: r.stepCount,
    usage: r.usage,
    headHash: r.headHash ?? null,
    recordCount,
  };
}

export interface StoredEvent {
  /** Null when the row is not an event as recorded (its detail is no longer JSON...). */
  event: ChainedEvent | null;
  hash: string | null;
  /** For messages: the row's pos and type, as stored. */
  pos: number | null;
  type: string;
}

interface ChainV2ToVerify {
  /** The genesis as stored: its text (store) or object (export). */
  genesis: unknown;
  run: ClaimedRun;
  steps: readonly (StoredStep & { pos: number | null })[];
  events: readonly StoredEvent[];
  screenshot(sha256: string): ScreenshotState;
  /** Called with each record that verifies, in order (for checking a head kept elsewhere). */
  onRecord?: (record: ChainRecordRef) => void;
}

/** One verified record of a chain: what a head kept elsewhere is matched against. */
export interface ChainRecordRef {
  pos: number;
  hash: string;
  kind: 'step' | 'event';
  /** The event's type, or 'step'. */
  type: string;
}

/**
 * Where a head kept elsewhere (a head log, a receipt) sits in a verified chain. It anchors the
 * chain up to it; what follows it is vouched for by the chain alone, and after the run's final
 * outcome only purges may follow.
 */
export function anchorHead(records: readonly ChainRecordRef[], head: string, atPos?: number): { ok: true; pos: number; after: ChainRecordRef[] } | { ok: false; problem: string } {
  const i = records.findIndex((r) => r.hash === head);
  if (i < 0) {
    const there = atPos !== undefined ? records[atPos - 1] : undefined;
    return {
      ok: false,
      problem:
        `the head ${short(head)} kept elsewhere is not a record of this chain` +
        (there ? ` (its record ${there.pos} is ${short(there.hash)})` : '') +
        ': the chain was rewritten, or records were removed, after that head was kept',
    };
  }
  if (atPos !== undefined && i + 1 !== atPos) return { ok: false, problem: `the head ${short(head)} kept elsewhere was record ${atPos - 1}, but in this chain it is record ${i}: records were removed or inserted` };
  const after = records.slice(i + 1);
  const ended = records.slice(0, i + 1).some((r) => r.type === 'outcome');
  const notPurge = after.filter((r) => r.type !== 'purged');
  if (ended && notPurge.length > 0) {
    return { ok: false, problem: `after the head ${short(head)} kept elsewhere (the run had ended) the chain goes on with ${notPurge.map((r) => (r.kind === 'step' ? 'a step' : `a ${r.type} event`)).join(', ')}: records were added after the run ended` };
  }
  return { ok: true, pos: i, after };
}

/** `order` is an event's place in the trail as stored (and as a report lists it): it must follow pos. */
type Entry = { kind: 'step'; pos: number; step: StoredStep } | { kind: 'event'; pos: number; order: number; event: StoredEvent };

const FINAL: readonly string[] = FINAL_STATUSES;
const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'costUsd'] as const;

/** Walks a format-2 chain from its genesis; the first record that does not hold is named, with the field where a run field is wrong. */
export function verifyChainV2(chain: ChainV2ToVerify): VerifyResult {
  const run = chain.run;
  let steps = 0;
  let events = 0;
  const fail = (where: NonNullable<Extract<VerifyResult, { ok: false }>['where']>, problem: string, field?: string): VerifyResult => ({
    ok: false,
    format: 2,
    brokenStep: steps,
    problem,
    where,
    ...(field ? { field } : {}),
  });

  // ---- Genesis: the run's fixed facts and the case copy it started with.
  let genesis: Record<string, unknown>;
  try {
    const g = typeof chain.genesis === 'string' ? (JSON.parse(chain.genesis) as unknown) : chain.genesis;
    if (!g || typeof g !== 'object' || Array.isArray(g)) throw new Error('not an object');
    genesis = g as Record<string, unknown>;
  } catch {
    return fail('genesis', "the chain's genesis record is missing or not JSON (it was changed after the run started)", 'genesis');
  }
  if (genesis.chain !== 2) return fail('genesis', `the chain's genesis record says chain ${String(genesis.chain)}, not 2`, 'genesis');
  for (const key of ['id', 'caseId', 'clientId', 'portal', 'task', 'startedAt', 'planner', 'approveMode', 'layout'] as const) {
    const recorded = genesis[key] ?? null;
    const claimed = run[key] ?? null;
    if (recorded !== claimed) {
      return fail('run', `the run's ${key} reads ${JSON.stringify(claimed)}, but the chain's genesis records ${JSON.stringify(recorded)}: the run record was changed`, key);
    }
  }
  let prev = sha256Hex(canonicalJson(genesis));
  const state: Record<TrackedField, unknown> = {
    status: null,
    reason: null,
    applicationNumber: null,
    endedAt: null,
    model: genesis.model ?? null,
    caseJsonSha256: genesis.caseJsonSha256 ?? null,
  };
  const usage: Record<(typeof USAGE_KEYS)[number], number> = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  const purgedByRecord = new Set<string>();
  const noBytes: { step: number; hash: string; name: string }[] = [];
  const checked = new Set<string>();
  let outcomeAt: number | null = null;
  /** The last receipt a step's events kept, by its sha256 (the outcome must name the same). */
  let receipt: { sha256: string; step: number } | null = null;
  let lastHash: string | null = null;

  // ---- The record log, in pos order.
  const entries: Entry[] = [];
  for (const s of chain.steps) {
    if (s.pos === null) return fail('step', `step ${s.index}: it has no place in the run's record log (chain format 2 runs place every step)`, `steps[${s.index}]`);
    entries.push({ kind: 'step', pos: s.pos, step: s });
  }
  for (const [order, e] of chain.events.entries()) {
    if (e.pos === null) return fail('event', `an audit-trail event (${e.type}) has no place in the run's record log: it was added outside the chain`, 'auditTrail');
    entries.push({ kind: 'event', pos: e.pos, order, event: e });
  }
  entries.sort((a, b) => a.pos - b.pos);

  let pos = 0;
  for (const entry of entries) {
    if (entry.pos < pos) return fail('event', `two records claim place ${entry.pos} in the run's log`, 'auditTrail');
    if (entry.pos > pos) {
      // The record after the gap tells what went: a later step means a step, the next step an event.
      if (entry.kind === 'step' && entry.step.index > steps) {
        return fail('step', `step ${steps}: missing (record ${pos} of the run's log; the next stored step is ${entry.step.index})`, `steps[${steps}]`);
      }
      const what = entry.kind === 'step' ? 'an audit-trail event' : 'a step or an audit-trail event';
      return fail('event', `audit-trail record ${pos}: missing (the next stored record is ${entry.pos}): ${what} was deleted`, `auditTrail[${pos}]`);
    }
    if (entry.kind === 'step') {
      const step = entry.step;
      const at = `step ${steps}`;
      if (step.index !== steps) {
        return fail('step', step.index > steps ? `${at}: missing (the next stored step is ${step.index})` : `${at}: stored out of order (found step ${step.index})`, `steps[${steps}]`);
      }
      if (outcomeAt !== null) return fail('step', `${at}: recorded after the run's final outcome record (record ${outcomeAt}): a step was added after the run ended`, `steps[${steps}]`);
      let record: unknown;
      try {
        record = JSON.parse(step.json);
      } catch {
        return fail('step', `${at}: its stored JSON is not valid JSON (the step was changed after it was written)`, `steps[${steps}]`);
      }
      const shot = screenshotHashOf(record);
      const computed = stepHash(prev, step.json, shot);
      // The requests pane keeps its own sha256 in the step, so an edited request is named as such.
      const requests = requestsProblem(record);
      if (requests) return fail('step', `${at}: ${requests}`, `steps[${steps}].requests`);
      if (computed !== step.hash) {
        return fail('step', `${at}: its content does not match its chain hash (stored ${short(step.hash)}, computed ${short(computed)}): the step was changed, or a record before it was`, `steps[${steps}]`);
      }
      const parsed = StepRecord.safeParse(record);
      if (!parsed.success) return fail('step', `${at}: its JSON does not match the step schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`, `steps[${steps}]`);
      if (parsed.data.runId !== run.id) return fail('step', `${at}: it belongs to run ${parsed.data.runId}, not ${run.id}`, `steps[${steps}].runId`);
      const pictures = picturesOf(parsed.data);
      if (step.columns) {
        for (const p of pictures) {
          if ((step.columns[p.key] ?? null) !== p.hash) return fail('step', `${at}: its ${p.name} column disagrees with its JSON`, `steps[${steps}].${p.key}`);
        }
        if (step.columns.observationHash !== parsed.data.observationHash) return fail('step', `${at}: its observation-hash column disagrees with its JSON`, `steps[${steps}].observationHash`);
      }
      for (const p of pictures) {
        if (p.hash === null) continue;
        const state = chain.screenshot(p.hash);
        if (state.state === 'missing') return fail('screenshot', `${at}: its ${p.name} ${short(p.hash)} is missing (it was not purged)`, `screenshots.${short(p.hash)}`);
        if (state.state === 'purged') noBytes.push({ step: steps, hash: p.hash, name: p.name });
        else {
          if (sha256Hex(state.png) !== p.hash) return fail('screenshot', `${at}: its ${p.name} bytes do not match their hash ${short(p.hash)} (the PNG was changed)`, `screenshots.${short(p.hash)}`);
          checked.add(p.hash);
        }
      }
      const u = parsed.data.model?.usage;
      if (u) for (const k of USAGE_KEYS) usage[k] += u[k];
      for (const ev of parsed.data.events) {
        const kept = ev.type === 'receipt' ? receiptSha256In(ev.message) : null;
        if (kept) receipt = { sha256: kept, step: steps };
      }
      prev = computed;
      chain.onRecord?.({ pos, hash: computed, kind: 'step', type: 'step' });
      steps += 1;
    } else {
      const { event: e, hash } = entry.event;
      const at = `audit-trail record ${pos} (${entry.event.type})`;
      if (!e) return fail('event', `${at}: it no longer reads as an event (its stored detail or values are not JSON)`, `auditTrail[${pos}]`);
      if (entry.order !== events) {
        return fail('event', `${at}: stored out of order (it is event ${entry.order} of the trail as stored, but event ${events} by its place in the chain): the audit trail was reordered`, `auditTrail[${pos}]`);
      }
      if (pos === 0 && e.type !== 'created') return fail('event', `${at}: the run's first record must be its "created" event`, `auditTrail[${pos}].type`);
      if (e.runId !== run.id) return fail('event', `${at}: it belongs to run ${e.runId}, not ${run.id}`, `auditTrail[${pos}].runId`);
      const computed = eventHash(prev, eventChainJson(e));
      if (computed !== hash) {
        return fail(
          'event',
          `${at}: its content does not match its chain hash (stored ${hash ? short(hash) : '(none)'}, computed ${short(computed)}): the event was edited (its time, type, status, reason or detail), or a record before it was`,
          `auditTrail[${pos}]`,
        );
      }
      const set = e.set ?? {};
      for (const k of TRACKED_FIELDS) if (Object.hasOwn(set, k)) state[k] = set[k] ?? null;
      if (e.type === 'outcome') {
        const o = (set.outcome ?? {}) as { steps?: unknown; usage?: Record<string, unknown> };
        if (o.steps !== steps) return fail('event', `${at}: the outcome records ${String(o.steps)} steps, but ${steps} come before it`, 'outcome.steps');
        for (const k of USAGE_KEYS) {
          if (!sameNumber(o.usage?.[k], usage[k])) return fail('event', `${at}: the outcome records ${k} ${String(o.usage?.[k])}, but the steps before it sum to ${usage[k]}`, `outcome.usage.${k}`);
        }
        const named = (o as { receiptSha256?: unknown }).receiptSha256 ?? null;
        if (named !== (receipt?.sha256 ?? null)) {
          return fail(
            'event',
            `${at}: the outcome names receipt ${typeof named === 'string' ? `sha256 ${short(named)}` : String(named)}, but ${receipt ? `step ${receipt.step} kept the receipt with sha256 ${short(receipt.sha256)}` : 'no step kept a receipt'}`,
            'outcome.receiptSha256',
          );
        }
        outcomeAt = pos;
      }
      if (e.type === 'purged' && Array.isArray(set.screenshots)) for (const h of set.screenshots) if (typeof h === 'string') purgedByRecord.add(h);
      prev = computed;
      chain.onRecord?.({ pos, hash: computed, kind: 'event', type: e.type });
      events += 1;
    }
    lastHash = prev;
    pos += 1;
  }

  // ---- Screenshots without bytes: only a chained purge may have removed them.
  for (const gone of noBytes) {
    if (!purgedByRecord.has(gone.hash)) {
      return {
        ok: false,
        format: 2,
        brokenStep: gone.step,
        where: 'screenshot',
        field: `screenshots.${short(gone.hash)}`,
        problem: `step ${gone.step}: its ${gone.name} ${short(gone.hash)} has no bytes, yet no purge record in the chain names it: it was removed outside retention`,
      };
    }
  }

  // ---- A run that reached a final status has its outcome record (the loop never ends a run without one).
  if (typeof state.status === 'string' && FINAL.includes(state.status) && outcomeAt === null) {
    return fail('event', `the chain says the run is ${state.status}, but holds no outcome record for it: the run's final record was removed`, 'outcome');
  }

  // ---- Counts and head.
  if (steps < run.stepCount) return fail('step', `step ${steps}: missing (the run records ${run.stepCount} steps, ${steps} are stored)`, `steps[${steps}]`);
  if (steps > run.stepCount) return fail('run', `the run records ${run.stepCount} steps, but its chain holds ${steps}: the run's step count was changed`, 'stepCount');
  if (run.recordCount !== undefined && pos !== run.recordCount) {
    return fail('head', `the run records ${run.recordCount} chained records, but ${pos} are stored: records after the last stored one were removed`, 'recordCount');
  }
  if ((run.headHash ?? null) !== lastHash) {
    return fail(
      'head',
      `the run's head hash ${run.headHash ? short(run.headHash) : '(none)'} is not the last record's hash ${lastHash ? short(lastHash) : '(none)'}: the head was changed, or records after the last stored one were removed`,
      'headHash',
    );
  }

  // ---- The run record's fields against the chain's last value of each.
  const claimed: Record<TrackedField, unknown> = {
    status: run.status,
    reason: run.reason,
    applicationNumber: run.applicationNumber,
    endedAt: run.endedAt,
    model: run.model,
    caseJsonSha256: sha256Hex(run.caseJson),
  };
  for (const k of TRACKED_FIELDS) {
    if ((claimed[k] ?? null) !== (state[k] ?? null)) {
      const name = k === 'caseJsonSha256' ? 'caseJson' : k;
      const shown = (v: unknown) => (k === 'caseJsonSha256' ? `sha256 ${typeof v === 'string' ? short(v) : String(v)}` : JSON.stringify(v ?? null));
      return fail(
        'run',
        `the run's ${k === 'caseJsonSha256' ? 'case copy (caseJson)' : name} is ${shown(claimed[k])}, but the chain's last record of it says ${shown(state[k])}: the run record was changed after it was written`,
        name,
      );
    }
  }
  for (const k of USAGE_KEYS) {
    if (!sameNumber(run.usage[k], usage[k])) {
      return fail('run', `the run's usage.${k} is ${run.usage[k]}, but its chained steps sum to ${usage[k]}: the token totals were changed`, `usage.${k}`);
    }
  }

  return {
    ok: true,
    format: 2,
    steps,
    events,
    records: pos,
    headHash: lastHash,
    checkedScreenshots: checked.size,
    purgedScreenshots: new Set(noBytes.map((n) => n.hash)).size,
    covers: CHAIN_V2_COVERS,
    cannot: CANNOT_PROVE,
  };
}

/** A step's pictures in the order verify checks them: the before screenshot, the after picture, the full-page picture. */
function picturesOf(step: StepRecord): { key: 'screenshotHash' | 'afterScreenshotHash' | 'fullPageHash'; name: string; hash: string | null }[] {
  return [
    { key: 'screenshotHash', name: 'screenshot', hash: step.screenshotHash },
    { key: 'afterScreenshotHash', name: 'after picture', hash: step.afterScreenshotHash ?? null },
    { key: 'fullPageHash', name: 'full-page picture', hash: step.fullPageHash ?? null },
  ];
}

/**
 * Whether a step's recorded requests still match the sha256 the step keeps of them (`requestsSha256`,
 * written with the step): a request edited in the store or an export no longer does. Null when they
 * match, or when the step has neither (steps recorded before requests were kept).
 */
function requestsProblem(record: unknown): string | null {
  if (!record || typeof record !== 'object') return null;
  const { requests, requestsSha256 } = record as { requests?: unknown; requestsSha256?: unknown };
  if (requests === undefined && requestsSha256 === undefined) return null;
  if (typeof requestsSha256 !== 'string') return 'its recorded requests have no sha256 beside them (requestsSha256 was removed)';
  const computed = digest(requests ?? null);
  if (computed === requestsSha256) return null;
  return `its recorded requests (what the egress lock let through and refused) do not match the sha256 the step keeps of them (kept ${short(requestsSha256)}, computed ${short(computed)}): a recorded request was edited, added or removed`;
}

/** The receipt's sha256 as a step's `receipt` event states it ("Receipt sha256 <hex> ..."); the store's outcome reads it the same way. */
export function receiptSha256In(message: string): string | null {
  return /\bsha256 ([0-9a-f]{64})\b/.exec(message)?.[1] ?? null;
}

function sameNumber(a: unknown, b: number): boolean {
  return typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}
