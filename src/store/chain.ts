import { digest, sha256Hex } from '../base/canonical-json';
import { StepRecord } from '../shared/run';

/**
 * Tamper evidence, chain format 1 (runs recorded before schema 4; chain-v2.ts has format 2):
 * each run's steps form a hash chain.
 *
 *   genesis     = sha256(canonicalJson({ id, caseId, clientId, portal, task, startedAt }))
 *   stepHash(i) = sha256(prev + '\n' + canonicalJson(step i) + '\n' + (step i's screenshotHash ?? ''))
 *                 where prev is genesis for step 0 and stepHash(i-1) after it
 *   headHash    = stepHash(last step)
 *
 * The chain covers a screenshot's HASH, not its bytes, so purging old screenshots keeps the
 * chain whole; bytes are checked against that hash wherever they remain.
 */
export const CHAIN_DEFINITION =
  "genesis = sha256(canonicalJson({id, caseId, clientId, portal, task, startedAt})); " +
  "stepHash = sha256(prevHash + '\\n' + canonicalJson(step) + '\\n' + (step.screenshotHash ?? '')); " +
  'canonicalJson = JSON with object keys sorted recursively and no whitespace; hashes are lower-case hex.';

export interface RunIdentity {
  id: string;
  caseId: string;
  clientId: string;
  portal: string;
  task: string;
  startedAt: string;
}

export function genesisHash(run: RunIdentity): string {
  return digest({ id: run.id, caseId: run.caseId, clientId: run.clientId, portal: run.portal, task: run.task, startedAt: run.startedAt });
}

export function stepHash(prevHash: string, stepJson: string, screenshotHash: string | null): string {
  return sha256Hex(`${prevHash}\n${stepJson}\n${screenshotHash ?? ''}`);
}

/** What a verdict proved, and what no chain can prove by itself. */
interface ChainScope {
  /** 1: identity and steps only (older runs); 2: every fact a report shows. */
  format: 1 | 2;
  /** What the chain covers, one line each. */
  covers: string[];
  /** What an intact chain does not prove. */
  cannot: string;
}

/** Where a broken chain breaks. */
type BreakPlace = 'genesis' | 'step' | 'event' | 'screenshot' | 'run' | 'head';

export type VerifyResult =
  | (ChainScope & {
      ok: true;
      /** Steps verified. */
      steps: number;
      /** The last step's hash; null for a run without steps. */
      headHash: string | null;
      /** Screenshots whose bytes were checked against their hash. */
      checkedScreenshots: number;
      /** Screenshots purged by retention: their hash is in the chain, their bytes are gone. */
      purgedScreenshots: number;
      /** Format 2: audit-trail events verified, and all records (steps + events). */
      events?: number;
      records?: number;
    })
  | {
      ok: false;
      format?: 1 | 2;
      /** The first step that fails; equals the number of steps when they all verify but the run's head or count does not. */
      brokenStep: number;
      problem: string;
      /** What broke; for `run`, `field` names the run field whose value the chain does not hold. */
      where?: BreakPlace;
      field?: string;
    };

export const CANNOT_PROVE =
  'An intact chain shows the record was not edited piecemeal. It cannot tell the run as recorded from a whole chain rewritten ' +
  'from its genesis by someone with write access to the file and this program: only a head kept elsewhere can ' +
  '("portal-desk verify --heads FILE" against the office\'s append-only head log, or --expect-head HASH).';

const V1_COVERS = [
  "the run's identity (id, case, client, portal, task, start time)",
  'every step with its actions, approvals and step events, and each screenshot by its sha256',
  'NOT covered (older chain format 1): the case copy, status, reason, application number, token totals, the audit trail, purges',
];

/** A step as stored: the exact JSON text the chain hashes and the hash recorded with it. */
export interface StoredStep {
  index: number;
  json: string;
  hash: string;
  /** Copies of chain-covered fields kept in columns for queries; checked against the JSON when given. */
  columns?: { screenshotHash: string | null; afterScreenshotHash?: string | null; fullPageHash?: string | null; observationHash: string };
}

export type ScreenshotState = { state: 'present'; png: Uint8Array } | { state: 'purged' } | { state: 'missing' };

interface ChainToVerify {
  identity: RunIdentity;
  /** Step count and head hash the run claims. */
  stepCount: number;
  headHash: string | null;
  /** In index order. */
  steps: Iterable<StoredStep>;
  screenshot(sha256: string): ScreenshotState;
}

/** Walks the chain from genesis and names the first step that does not hold. */
export function verifyChain(chain: ChainToVerify): VerifyResult {
  let prev = genesisHash(chain.identity);
  let expected = 0;
  let lastHash: string | null = null;
  const checked = new Set<string>();
  const purged = new Set<string>();
  const fail = (brokenStep: number, problem: string): VerifyResult => ({ ok: false, brokenStep, problem: `step ${brokenStep}: ${problem}` });

  for (const step of chain.steps) {
    if (step.index !== expected) {
      return step.index > expected
        ? fail(expected, `missing (the next stored step is ${step.index})`)
        : fail(expected, `stored out of order (found step ${step.index} where step ${expected} belongs)`);
    }
    let record: unknown;
    try {
      record = JSON.parse(step.json);
    } catch {
      return fail(expected, 'its stored JSON is not valid JSON (the step was changed after it was written)');
    }
    const shotHash = screenshotHashOf(record);
    const computed = stepHash(prev, step.json, shotHash);
    if (computed !== step.hash) {
      return fail(
        expected,
        `its content does not match its chain hash (stored ${short(step.hash)}, computed ${short(computed)}): ` +
          (expected === 0 ? 'the step or the run\'s identity was changed' : 'the step was changed, or an earlier step\'s hash was rewritten'),
      );
    }
    const parsed = StepRecord.safeParse(record);
    if (!parsed.success) return fail(expected, `its JSON does not match the step schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    if (parsed.data.runId !== chain.identity.id) return fail(expected, `it belongs to run ${parsed.data.runId}, not ${chain.identity.id}`);
    if (parsed.data.index !== expected) return fail(expected, `its JSON says it is step ${parsed.data.index}`);
    if (step.columns) {
      if (step.columns.screenshotHash !== shotHash) return fail(expected, 'its screenshot column disagrees with its JSON');
      if (step.columns.observationHash !== parsed.data.observationHash) return fail(expected, 'its observation-hash column disagrees with its JSON');
    }
    if (shotHash !== null) {
      const shot = chain.screenshot(shotHash);
      if (shot.state === 'missing') return fail(expected, `its screenshot ${short(shotHash)} is missing (it was not purged)`);
      if (shot.state === 'purged') purged.add(shotHash);
      else {
        if (sha256Hex(shot.png) !== shotHash) return fail(expected, `its screenshot bytes do not match their hash ${short(shotHash)} (the PNG was changed)`);
        checked.add(shotHash);
      }
    }
    prev = computed;
    lastHash = computed;
    expected += 1;
  }

  if (expected < chain.stepCount) return fail(expected, `missing (the run records ${chain.stepCount} steps, ${expected} are stored)`);
  if (expected > chain.stepCount) {
    return { ok: false, brokenStep: chain.stepCount, problem: `step ${chain.stepCount}: stored, but the run records only ${chain.stepCount} steps (the run's step count was changed)` };
  }
  if ((chain.headHash ?? null) !== lastHash) {
    return {
      ok: false,
      brokenStep: expected,
      problem:
        `the run's head hash ${chain.headHash ? short(chain.headHash) : '(none)'} is not the last step's hash ${lastHash ? short(lastHash) : '(none)'}: ` +
        'the head was changed, or steps after the last stored one were removed',
    };
  }
  return { ok: true, format: 1, steps: expected, headHash: lastHash, checkedScreenshots: checked.size, purgedScreenshots: purged.size, covers: V1_COVERS, cannot: CANNOT_PROVE };
}

export function screenshotHashOf(record: unknown): string | null {
  if (record && typeof record === 'object' && 'screenshotHash' in record) {
    const h = (record as { screenshotHash: unknown }).screenshotHash;
    if (typeof h === 'string') return h;
  }
  return null;
}

export function short(hash: string): string {
  return hash.slice(0, 12);
}
