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
import { permitsFaultRows } from './permits';

/**
 * The fault suite: real portals' realities injected into every lab flow, scored from the lab's
 * own records and the store, never from what the run says about itself.
 *
 * - `expiry`: the portal signs the client out right after step k (`lab.expireSession` from the
 *   run's step listener), for k = 0, 1, 2 … up to the run's last step. The run must sign in
 *   again, reopen its saved draft and finish. Default (CI): several expiries within one run, at
 *   most MAX_EXPIRIES_PER_RUN (a run signs in at most 4 times, src/agent/loop/handlers/sign-in.ts),
 *   so each flow takes about a third of the runs it took with one run per step; `--full`: one run
 *   per step. After the first expiry a run's step numbers no longer match the fault-free run's
 *   (signing in again and reopening the draft are steps too), so a later step k is recognised by
 *   what it did (`stepMark`: the page's flow step and path, the actions that completed), unique
 *   among the fault-free run's steps; a step whose mark is not unique opens a run of its own.
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
 * Default (CI): expiry after every step of every flow; SIGKILL at three different steps, one
 * per flow (the last right after the Submit click). `--full`: SIGKILL after every step of every flow as well.
 * The trade-permits portal joins with an outage fault (`permitsFaultRows`): its baseline and one
 * outage mid-flow in CI, an outage after every step with `--full`.
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
  at: number;
  /** expiry: every step (of the fault-free run's numbering) after which the session is ended, `at` first. */
  ats?: number[];
  /** expiry: the fault-free run's step marks (`stepMark`), to find steps after the first expiry. */
  marks?: string[];
}

/** At most this many expiries in one run: with the first sign-in, the 4 sign-ins a run may make. */
const MAX_EXPIRIES_PER_RUN = 3;

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
  /** The steps' marks (`stepMark`), in order. */
  marks?: string[];
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
    // A fault-free run of each flow first: it counts as a case and tells how many steps the flow has.
    const queue: FaultCase[] = portals.map((portal) => ({ portal, fault: 'none', at: -1 }));
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
      if (c.fault === 'none' && outcome.status === 'done' && outcome.steps) queue.push(...faultsFor(c.portal, outcome.steps, options.full, outcome.marks ?? []));
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
      expiries: results.reduce((n, r) => n + (typeof r.metrics.expired_after === 'string' ? r.metrics.expired_after.split('+').length : 0), 0),
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
    ok: results.length > portals.length && results.every((r) => r.pass) && duplicates === 0 && lost === 0 && completion === 1,
  };
}

/**
 * The faults for a flow of `steps` steps (0..steps-1). A fault after the last step would find
 * the run over, so k goes to steps-2. Every flow gets an expiry after every step. Default (CI):
 * those expiries grouped, up to MAX_EXPIRIES_PER_RUN a run (`expiryGroups`); SIGKILL at three
 * steps spread over a flow (the last one right after the Submit click), dealt round the flows so
 * each flow is killed once and the three steps differ. `--full`: one run per expiry, and SIGKILL after
 * every step of every flow.
 */
function faultsFor(portal: PortalId, steps: number, full: boolean, marks: string[]): FaultCase[] {
  const last = steps - 2;
  // n steps spread over 1..last, the last one included (right after the Submit click).
  const spread = (n: number) => [...new Set(Array.from({ length: n }, (_, i) => Math.round(((i + 1) * last) / n)))];
  const flow = PORTAL_ORDER.indexOf(portal);
  const expiry = full || marks.length !== steps ? range(last + 1).map((at) => [at]) : expiryGroups(range(last + 1), marks);
  const kill = full ? range(last + 1) : spread(PORTAL_ORDER.length).filter((_, i) => i === flow);
  // The kills first: each is two real processes, the longest cases, so they do not end the pool alone.
  return [
    ...kill.map((at) => ({ portal, fault: 'sigkill' as const, at })),
    ...expiry.map((ats) => ({ portal, fault: 'expiry' as const, at: ats[0]!, ats, marks })),
  ];
}

/**
 * Every step in some run, up to MAX_EXPIRIES_PER_RUN a run, spread over the flow (run g takes
 * steps g, g+n, g+2n…). The first expiry of a run is found by its step number; a later one by its
 * mark, so a step whose mark another step of the flow shares only ever comes first.
 */
export function expiryGroups(steps: number[], marks: readonly string[]): number[][] {
  const unique = (k: number) => marks.filter((m) => m === marks[k]).length === 1;
  const groups: number[][] = steps.filter((k) => !unique(k)).map((k) => [k]);
  const rest = steps.filter(unique);
  const n = Math.ceil(rest.length / MAX_EXPIRIES_PER_RUN);
  for (let g = 0; g < n; g++) groups.push(rest.filter((_, i) => i % n === g));
  return groups.sort((a, b) => a[0]! - b[0]!);
}

/** The flow's case file under a client id of its own, so the lab's records are this case's. */
function clientCase(c: FaultCase): CaseFile {
  const base = loadCaseFile(join(CASES_DIR, FLOWS[c.portal]));
  const tag = c.fault === 'none' ? 'base' : `${c.fault === 'expiry' ? 'x' : 'k'}${(c.ats ?? [c.at]).join('-')}`;
  return { ...base, caseId: `${base.caseId}-${tag}`, clientId: `${base.clientId}-${tag}` };
}

const approveAll: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'faults-suite clerk' }) };
const answerNothing: InputSource = { ask: async () => null };

/**
 * In this process; with the expiry fault the lab ends the client's session right after each step
 * of `ats` is recorded (the first by its number, the others by their mark; see `expiryGroups`).
 */
async function inProcessRun(c: FaultCase, caseFile: CaseFile, lab: Lab, browser: Browser, store: Store): Promise<Outcome> {
  const targets = c.fault === 'expiry' ? (c.ats ?? [c.at]) : [];
  const marks: string[] = [];
  let next = 0;
  let injected = c.fault !== 'expiry';
  try {
    const finished = await executeRun(
      { store, browser, approvals: approveAll, inputs: answerNothing, credentials: new LabCredentials() },
      {
        caseFile,
        profile: bindLabProfile(loadPortalProfile(caseFile.portal), lab.port),
        planner: 'rules',
        approveMode: 'all',
        listener: {
          step: (step) => {
            const mark = stepMark(step);
            marks.push(mark);
            if (next >= targets.length) return;
            const k = targets[next]!;
            const reached = next === 0 ? step.index === k : mark === c.marks?.[k];
            if (!reached) return;
            next += 1;
            injected = next === targets.length;
            lab.expireSession(caseFile.clientId);
          },
        },
      },
    );
    const reason = injected ? finished.reason : `the run ended before step ${targets[next] ?? c.at} (expiry ${next + 1} of ${targets.length}), the fault never came: ${finished.reason}`;
    return { status: injected ? finished.status : 'error', reason, runId: finished.runId, store, steps: finished.steps, marks };
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
  const id = c.fault === 'none' ? `baseline:${c.portal}` : `${c.fault}:${c.portal}@${(c.ats ?? [c.at]).join('+')}`;
  const submissions = lab.submissions({ clientId: caseFile.clientId });
  const mismatches = submissions.length === 1 ? compareSubmission(caseFile.fields, submissions[0]!.fields).length : 0;
  let lostSteps = 0;
  let steps = 0;
  let chainOk = false;
  if (outcome.runId) {
    const store = outcome.store ?? (outcome.dbPath ? openStore(outcome.dbPath) : undefined);
    try {
      if (store) {
        const recorded = (await store.listSteps(outcome.runId)).map((s) => s.index);
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
      ...(c.ats ? { expired_after: c.ats.join('+') } : {}),
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

