import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { BrowserKeeper } from '../../../src/agent/browser/browser-keeper';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { ConfigFileError } from '../../../src/agent/case/config-file-error';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import { bindLabProfile, compareSubmission, startLab, type Lab, type PortalId } from '../..';
import { LabCredentials } from '../../demo/lab-portals';
import { executeRun } from '../../../src/service/run-service';
import type { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalGate, InputSource } from '../../../src/shared/clerk';
import type { RunStatus, StepRecord } from '../../../src/shared/run';
import { openStore, type Store } from '../../../src/store';
import { scratchFolder } from '../scratch-folder';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';
import { errorText } from '../../../src/base/error-text';
import { findApplicationNumber } from '../../../src/agent/portal/page-kind';
import { permitsFaultRows } from './permits';

/**
 * The fault suite: real portals' realities injected into every lab flow, scored from the lab's
 * own records and the store, never from what the run says about itself.
 *
 * - `expiry`: the portal signs the client out right after a step (`lab.expireSession` from the
 *   run's step listener). The run must sign in again, reopen its saved draft and finish. Default
 *   (CI): ONE run per flow, the session ended after every step that did something the run had not
 *   done before (a step whose `stepMark` — the page's flow step and path, whether code signed in,
 *   the actions that completed — is new in the run): every step of the flow up to the confirmation
 *   page (after it the form is over; `--full` too stops at step n-2), and the first sign-in and
 *   draft reopening after an expiry too, never the same mark twice, so the run moves on. The
 *   run's sign-in limit is raised for it (RunLimits.maxSignIns; 4 by default). `--full`: a
 *   fault-free run of the flow first, then one run per step k = 0 … n-2 of it, the session ended
 *   after step k only.
 * - `sigkill`: a real `portal-desk run` process (on this suite's lab, `--lab-url`) is killed
 *   with SIGKILL as soon as its stderr shows step k; `portal-desk resume` in another process
 *   continues the run from the store.
 *
 * Every case uses its own lab client, so the lab's records are per case. A case passes when the
 * run ends `done`, the lab holds exactly one submission for its client with the case's fields,
 * and the store has every step index 0..n-1 with a hash chain that verifies.
 * Summary: `completion_rate`, `duplicate_submissions`, `lost_steps` (missing indices and chain
 * failures). `ok` when completion is 100 % and the other two are 0.
 *
 * Default (CI): the three expiry runs (one per flow) and one SIGKILL, mid-form on the power flow
 * (SIGKILL mid-form on the tax flow and right after the Submit click on the shops flow are
 * test/realities/resume.test.ts, per commit too). `--full`: a fault-free run of each flow, one
 * expiry run per step, and SIGKILL after every step of every flow.
 * The trade-permits portal joins with an outage fault (`permitsFaultRows`): one outage mid-flow in
 * CI, its baseline and an outage after every step with `--full`.
 */

const REPO = resolve(__dirname, '../../..');
const BIN = join(REPO, 'bin/portal-desk.js');
const CASES_DIR = join(REPO, 'resources/cases');

/** One case file per lab flow. */
const FLOWS: Record<PortalId, string> = {
  shops: 'shops-renewal-anand-bakery.json',
  power: 'power-name-change-deshpande.json',
  tax: 'tax-return-deccan-software-aug-2026.json',
};
const PORTAL_ORDER = Object.keys(FLOWS) as PortalId[];
const CHILD_TIMEOUT_MS = 600_000;

export const faultsSuite: EvalSuite = {
  name: 'faults',
  description: 'session expiry after every step and SIGKILL + resume of real processes, on every lab flow, and portal outages on the trade-permits flow: no lost step, no duplicate submission',
  models: ['rules'],
  run: runFaults,
};

interface FaultCase {
  portal: PortalId;
  fault: 'none' | 'expiry' | 'sigkill';
  /** sigkill: the step shown before the kill; expiry: the step after which the session is ended (`--full`); -1 for every step (CI). */
  at: number;
}

/** The CI expiry run: every new step is followed by an expiry, and by a sign-in, so the run may sign in this often (RunLimits.maxSignIns). */
const EVERY_STEP_LIMITS = { maxSignIns: 40, maxSteps: 100, timeLimitMs: 1_200_000 };
/** The CI SIGKILL: the power flow, killed once step 6 shows (its third section filled and continued; the flow has 11 steps). */
const CI_KILL: FaultCase = { portal: 'power', fault: 'sigkill', at: 6 };

/**
 * What a step did, as the same step of another run of the flow shows it: the page's flow step and
 * path (digits out: draft numbers differ), whether code signed in, and the actions that completed.
 */
export function stepMark(step: StepRecord): string {
  let path = '';
  try {
    path = new URL(step.observation.url).pathname.replace(/\d+/g, '#');
  } catch {
    path = step.observation.url;
  }
  const signIn = step.events.some((e) => e.type === 'sign_in') ? 'sign-in' : '';
  const done = step.actions.filter((a) => a.outcome.status === 'done').map((a) => `${a.action.type}:${a.element ?? ''}`);
  return [step.observation.flowStep ?? '', path, signIn, ...done].join('|');
}

interface Outcome {
  status: RunStatus | 'error';
  reason: string;
  runId?: string;
  store?: Store;
  dbPath?: string;
  /** Steps the run has in the store. */
  steps?: number;
  /** expiry: the steps (this run's numbering) after which the lab ended the session. */
  expiredAfter?: number[];
}

async function runFaults(options: EvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const dir = mkdtempSync(join(scratchFolder(), 'pd-faults-'));
  const lab = await startLab();
  // Relaunched when it dies: one crash fails the case it killed, not every case after it.
  const browsers = new BrowserKeeper<string>((rules) => launchChromium({ hostResolverRules: rules }), () => options.log('the browser stopped; the next case starts a new one'));
  const store = openStore(join(dir, 'in-process.sqlite'));
  const results: EvalCaseResult[] = [];
  const portals = PORTAL_ORDER;
  // The trade-permits portal (lab/permits): an outage after step k instead of expiry and SIGKILL (it has
  // no sign-in, and no CLI flow). Its own server and browser, so it runs beside the lab's flows, not after
  // them; settled at once so a failure is thrown below, never left unhandled meanwhile.
  const permits = permitsFaultRows(options.full, options.log).then(
    (rows) => ({ rows, error: null as unknown }),
    (error: unknown) => ({ rows: [] as EvalCaseResult[], error }),
  );
  try {
    // --full: a fault-free run of each flow first: it counts as a case and tells how many steps the flow
    // has. CI: the kill first (two real processes, the longest case), then one expiry run per flow.
    const queue: FaultCase[] = options.full
      ? portals.map((portal) => ({ portal, fault: 'none', at: -1 }))
      : [CI_KILL, ...portals.map((portal) => ({ portal, fault: 'expiry' as const, at: -1 }))];
    const one = async (c: FaultCase): Promise<void> => {
      let caseFile: CaseFile;
      try {
        caseFile = clientCase(c);
      } catch (err) {
        // A flow whose case file cannot be used fails in one line; the other flows go on.
        if (!(err instanceof ConfigFileError)) throw err;
        results.push({ id: `${c.portal}-${c.fault}`, pass: false, detail: err.message, metrics: { refused: true } });
        options.log(`FAIL ${c.portal}: ${err.message} (the other flows run)`);
        return;
      }
      lab.configure(caseFile.clientId, {});
      const outcome =
        c.fault === 'sigkill' ? await killRun(c, caseFile, lab, dir) : await inProcessRun(c, caseFile, lab, await browsers.get(lab.hostResolverRules), store);
      const result = await score(c, caseFile, outcome, lab);
      results.push(result);
      options.log(`${result.pass ? 'PASS' : 'FAIL'} ${result.id}: ${result.detail}`);
      if (c.fault === 'none' && outcome.status === 'done' && outcome.steps) queue.push(...faultsFor(c.portal, outcome.steps));
    };
    await pool(queue, Math.max(1, options.concurrency), one);
    const outages = await permits;
    if (outages.error) throw outages.error;
    results.push(...outages.rows);
  } finally {
    await permits;
    store.close();
    await browsers.closeAll();
    await lab.stop();
  }

  results.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  const count = (key: string) => results.reduce((n, r) => n + (typeof r.metrics[key] === 'number' ? (r.metrics[key] as number) : 0), 0);
  const completed = results.filter((r) => r.metrics.status === 'done').length;
  const duplicates = count('duplicate_submissions');
  const lost = count('lost_steps');
  const completion = results.length ? completed / results.length : 0;
  return {
    suite: 'faults',
    model: options.model,
    results,
    summary: {
      cases: results.length,
      expiry_cases: results.filter((r) => r.metrics.fault === 'expiry').length,
      expiries: count('expiries'),
      sigkill_cases: results.filter((r) => r.metrics.fault === 'sigkill').length,
      outage_cases: results.filter((r) => r.metrics.fault === 'outage').length,
      completed,
      completion_rate: `${Math.round(completion * 1000) / 10}%`,
      duplicate_submissions: duplicates,
      lost_steps: lost,
      missing_submissions: count('missing_submissions'),
      field_mismatches: count('field_mismatches'),
      wall_s: Math.round((Date.now() - started) / 1000),
    },
    ok: results.length >= portals.length && results.every((r) => r.pass) && duplicates === 0 && lost === 0 && completion === 1,
  };
}

/**
 * `--full`: the faults for a flow of `steps` steps (0..steps-1), found by its fault-free run. A
 * fault after the last step would find the run over, so k goes to steps-2: one run per expiry,
 * and SIGKILL after every step.
 */
function faultsFor(portal: PortalId, steps: number): FaultCase[] {
  const ks = range(steps - 1);
  // The kills first: each is two real processes, the longest cases, so they do not end the pool alone.
  return [...ks.map((at) => ({ portal, fault: 'sigkill' as const, at })), ...ks.map((at) => ({ portal, fault: 'expiry' as const, at }))];
}

/** The flow's case file under a client id of its own, so the lab's records are this case's. */
function clientCase(c: FaultCase): CaseFile {
  const base = loadCaseFile(join(CASES_DIR, FLOWS[c.portal]));
  const tag = c.fault === 'none' ? 'base' : `${c.fault === 'expiry' ? 'x' : 'k'}${c.at < 0 ? 'every' : c.at}`;
  return { ...base, caseId: `${base.caseId}-${tag}`, clientId: `${base.clientId}-${tag}` };
}

const approveAll: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'faults-suite clerk' }) };
const answerNothing: InputSource = { ask: async () => null };

/**
 * In this process. With the expiry fault the lab ends the client's session right after step `at`
 * is recorded (`--full`), or (CI, `at` -1) after every step whose mark (`stepMark`) is new in the run.
 */
async function inProcessRun(c: FaultCase, caseFile: CaseFile, lab: Lab, browser: Browser, store: Store): Promise<Outcome> {
  const every = c.fault === 'expiry' && c.at < 0;
  /** The marks (`stepMark`) of the run's steps so far: a step whose mark is among them did nothing new. */
  const seen = new Set<string>();
  const expiredAfter: number[] = [];
  const profile = bindLabProfile(loadPortalProfile(caseFile.portal), lab.port);
  try {
    const finished = await executeRun(
      { store, browser, approvals: approveAll, inputs: answerNothing, credentials: new LabCredentials() },
      {
        caseFile,
        profile,
        planner: 'rules',
        approveMode: 'all',
        ...(every ? { limits: EVERY_STEP_LIMITS } : {}),
        listener: {
          step: (step) => {
            const mark = stepMark(step);
            const fresh = !seen.has(mark);
            seen.add(mark);
            if (c.fault !== 'expiry' || (every ? !fresh : step.index !== c.at)) return;
            // Up to the confirmation, as --full (k <= n-2): once it shows an application number the form is over.
            if (every && findApplicationNumber(step.observation, profile)) return;
            expiredAfter.push(step.index);
            lab.expireSession(caseFile.clientId);
          },
        },
      },
    );
    const injected = c.fault !== 'expiry' || expiredAfter.length > 0;
    const reason = injected ? finished.reason : `the run ended before step ${c.at}, the fault never came: ${finished.reason}`;
    return { status: injected ? finished.status : 'error', reason, runId: finished.runId, store, steps: finished.steps, ...(c.fault === 'expiry' ? { expiredAfter } : {}) };
  } catch (err) {
    return { status: 'error', reason: errorText(err) };
  }
}

/** Real processes: `portal-desk run` killed with SIGKILL once step `at` shows, then `portal-desk resume`. */
async function killRun(c: FaultCase, caseFile: CaseFile, lab: Lab, dir: string): Promise<Outcome> {
  const caseDir = join(dir, `${c.portal}-kill-${c.at}`);
  mkdirSync(caseDir, { recursive: true });
  const casePath = join(caseDir, 'case.json');
  writeFileSync(casePath, JSON.stringify(caseFile));
  const dbPath = join(caseDir, 'runs.sqlite');
  const env = { PORTAL_DESK_HOME: join(caseDir, 'home') };
  const labUrl = `http://127.0.0.1:${lab.port}`;

  const first = child(['run', '--case', casePath, '--approve', 'all', '--db', dbPath, '--lab-url', labUrl], env, new RegExp(`\\n#${c.at} `));
  const ended = await first.result;
  const runId = /run id: (run-[\w-]+)/.exec(ended.stderr)?.[1];
  if (!runId) return { status: 'error', reason: `the run never printed its run id: ${lastLine(ended.stderr)}`, dbPath };
  if (!ended.matched) return { status: 'error', reason: `the run ended before step ${c.at}, the kill never came: ${lastLine(ended.stderr)}`, runId, dbPath };
  const second = child(['resume', runId, '--db', dbPath, '--approve', 'all', '--lab-url', labUrl, '--json'], env, null);
  const resumed = await second.result;
  let summary: { status?: RunStatus; reason?: string } = {};
  try {
    summary = JSON.parse(resumed.stdout) as typeof summary;
  } catch {
    return { status: 'error', reason: `resume exited ${resumed.code ?? resumed.signal}: ${lastLine(resumed.stderr)}`, runId, dbPath };
  }
  return { status: summary.status ?? 'error', reason: summary.reason ?? '', runId, dbPath };
}

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** `killOn` showed in stderr and the process was killed then. */
  matched: boolean;
}

function child(args: string[], env: Record<string, string>, killOn: RegExp | null): { result: Promise<ChildResult> } {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let matched = false;
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (killOn && !matched && killOn.test(stderr)) {
      matched = true;
      proc.kill('SIGKILL');
    }
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return {
    result: new Promise((resolvePromise) =>
      proc.on('close', (code, signal) => {
        clearTimeout(timer);
        resolvePromise({ code, signal, stdout, stderr, matched });
      }),
    ),
  };
}

/** Scores a case from the lab's records and the store. */
async function score(c: FaultCase, caseFile: CaseFile, outcome: Outcome, lab: Lab): Promise<EvalCaseResult> {
  const id = c.fault === 'none' ? `baseline:${c.portal}` : `${c.fault}:${c.portal}@${c.at < 0 ? 'every-step' : c.at}`;
  const submissions = lab.submissions({ clientId: caseFile.clientId });
  const mismatches = submissions.length === 1 ? compareSubmission(caseFile.fields, submissions[0]!.fields).length : 0;
  let lostSteps = 0;
  let steps = 0;
  let chainOk = false;
  let expiry: Record<string, number | boolean | string> = {};
  if (outcome.runId) {
    const store = outcome.store ?? (outcome.dbPath ? openStore(outcome.dbPath) : undefined);
    try {
      if (store) {
        const records = await store.listSteps(outcome.runId);
        const recorded = records.map((s) => s.index);
        if (outcome.expiredAfter) expiry = expiryMetrics(records, outcome.expiredAfter);
        const run = await store.getRun(outcome.runId);
        steps = run?.stepCount ?? recorded.length;
        lostSteps = range(steps).filter((i) => !recorded.includes(i)).length;
        chainOk = (await store.verifyRun(outcome.runId)).ok;
        if (!chainOk) lostSteps += 1;
      }
    } finally {
      if (store && !outcome.store) store.close();
    }
  }
  const duplicates = Math.max(0, submissions.length - 1);
  const missing = outcome.status === 'done' && submissions.length === 0 ? 1 : 0;
  const pass = outcome.status === 'done' && submissions.length === 1 && mismatches === 0 && lostSteps === 0 && chainOk;
  const detail = pass
    ? `done in ${steps} steps; 1 submission equal to the case; steps 0..${steps - 1} present, chain verifies`
    : [
        `${outcome.status}: ${outcome.reason}`,
        `${submissions.length} submission(s)`,
        mismatches ? `${mismatches} field(s) differ` : '',
        lostSteps ? `${lostSteps} step(s) lost or chain broken` : '',
      ]
        .filter(Boolean)
        .join('; ');
  return {
    id,
    pass,
    detail,
    metrics: {
      portal: c.portal,
      fault: c.fault,
      at: c.at,
      // expiry: every step the session was ended after, "0+3+6" (the fault-free run's numbering).
      ...expiry,
      status: outcome.status,
      steps,
      submissions: submissions.length,
      duplicate_submissions: duplicates,
      missing_submissions: missing,
      field_mismatches: mismatches,
      lost_steps: lostSteps,
      chain_ok: chainOk,
    },
  };
}

/**
 * What the expiries of a run did, from its steps in the store: the steps they came after
 * (`expired_after`, this run's numbering), how many came before a further step (`expiries`; one
 * after the last step finds the run over), whether one came right after the step whose approved
 * action completed (the Submit click), and how many were followed by no sign-in within the next two
 * steps (`expiries_without_sign_in`; the next step may still act on the page it had, the one after
 * it meets the sign-in page): the lab ended the session, so the run had to sign in again.
 */
function expiryMetrics(records: readonly StepRecord[], expiredAfter: readonly number[]): Record<string, number | boolean | string> {
  const last = Math.max(...records.map((r) => r.index));
  const effective = expiredAfter.filter((k) => k < last);
  const signedIn = (from: number, to: number) => records.some((r) => r.index > from && r.index <= to && r.events.some((e) => e.type === 'sign_in'));
  const submitStep = records.find((r) => r.actions.some((a) => a.approval?.decision === 'approve' && a.outcome.status === 'done'))?.index;
  return {
    expired_after: expiredAfter.join('+'),
    expiries: effective.length,
    expired_after_submit: submitStep !== undefined && effective.includes(submitStep),
    expiries_without_sign_in: effective.filter((k) => !signedIn(k, k + 2)).length,
    sign_ins: records.filter((r) => r.events.some((e) => e.type === 'sign_in')).length,
  };
}

/** Runs `work` over `queue`, at most `concurrency` at a time; work may add to the queue. */
async function pool<T>(queue: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let busy = 0;
  await new Promise<void>((done, fail) => {
    const pump = () => {
      if (queue.length === 0 && busy === 0) return done();
      while (busy < concurrency && queue.length > 0) {
        const item = queue.shift()!;
        busy++;
        work(item).then(
          () => {
            busy--;
            pump();
          },
          (err: unknown) => fail(err),
        );
      }
    };
    pump();
  });
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

