import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import type { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../../../src/shared/clerk';
import { executeRun } from '../../../src/service/run-service';
import { openStore } from '../../../src/store';
import type { PermitApplication } from '../../permits/data';
import { permitsProfile } from '../../permits/profile';
import { startPermitsPortal, type PermitsPortal } from '../../permits/server';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';

/**
 * The trade-permits portal's known-answer cases (lab/permits/cases): each run with the given
 * planner and a clerk who approves what is asked, scored from what the portal received. A case
 * passes when the run ends done with the number the portal issued, the portal holds exactly one
 * application for it, and that application is the case: every field in the portal's format (the
 * date from three boxes and from the calendar, the phone without country code, the district and
 * ward from their lists, the address from the shadow block and the finder frame, the div
 * checkboxes) and every document with the sha256 of the file the case names.
 */

export const PERMITS_CASES_DIR = join(__dirname, '..', '..', 'permits', 'cases');
/** The CI subset: one case with each document count and each checkbox pattern. */
const CI_SUBSET = ['permits-01-', 'permits-03-', 'permits-06-', 'permits-12-'];
/** The permits cases in the lab suite's CI subset (its `--full` runs all 20). */
const LAB_CI_SUBSET = ['permits-01-'];

class CountingClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  constructor(private readonly approving?: () => void) {}
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    this.approving?.();
    return { decision: 'approve', by: 'eval-clerk' };
  }
}
class SilentClerk implements InputSource {
  readonly asked: InputRequest[] = [];
  async ask(req: InputRequest): Promise<string | null> {
    this.asked.push(req);
    return null;
  }
}

export function permitCases(full: boolean, dir = PERMITS_CASES_DIR, subset: readonly string[] = CI_SUBSET): string[] {
  const all = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  return full ? all : all.filter((f) => subset.some((prefix) => f.startsWith(prefix)));
}

/**
 * The permits portal as a member of the lab suite: its cases (one in the CI subset, all 20 with
 * `--full`) on its one layout, rows named `original:<case>` with the lab suite's metrics.
 */
export async function permitsLabRows(model: 'rules' | 'anthropic', full: boolean, log: (line: string) => void): Promise<EvalCaseResult[]> {
  const run = await runPermits({ planner: model, only: permitCases(full, PERMITS_CASES_DIR, LAB_CI_SUBSET) });
  const rows = run.results.map((r) => ({ ...r, id: `original:${r.id}` }));
  for (const r of rows) log(`${r.pass ? 'PASS' : 'FAIL'} ${r.id}: ${r.detail}`);
  return rows;
}

/** What the portal should have received for a case: its values in the portal's format, its documents' hashes. */
export function expectedApplication(caseFile: CaseFile): Omit<PermitApplication, 'documents'> & { documents: Record<string, { file: string; sha256: string }> } {
  const f = caseFile.fields;
  const text = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : '');
  const documents: Record<string, { file: string; sha256: string }> = {};
  for (const [name, path] of Object.entries(caseFile.documents)) {
    const bytes = readFileSync(join(caseFile.folder ?? '', path));
    documents[name] = { file: path.split('/').pop()!, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return {
    applicant_name: text('applicant_name'),
    date_of_birth: text('date_of_birth'),
    trading_since: text('trading_since'),
    mobile_number: text('mobile_number').replace(/^\+91/, '').replace(/\D/g, ''),
    district: text('district'),
    ward: text('ward'),
    shop_address_line_1: text('shop_address_line_1'),
    shop_pin_code: text('shop_pin_code'),
    nearest_landmark: text('nearest_landmark'),
    home_delivery: f['home_delivery'] === true,
    outdoor_seating: f['outdoor_seating'] === true,
    declaration: true,
    documents,
  };
}

function differences(got: PermitApplication, want: ReturnType<typeof expectedApplication>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(want) as (keyof typeof want)[]) {
    if (key === 'documents') continue;
    if (got[key] !== want[key]) out.push(`${key}: got ${JSON.stringify(got[key])}, want ${JSON.stringify(want[key])}`);
  }
  const names = new Set([...Object.keys(want.documents), ...Object.keys(got.documents)]);
  for (const name of names) {
    const g = (got.documents as Record<string, { file: string; sha256: string } | undefined>)[name];
    const w = want.documents[name];
    if (!g || !w || g.sha256 !== w.sha256 || g.file !== w.file) out.push(`document ${name}: got ${g ? `${g.file} ${g.sha256.slice(0, 8)}` : 'none'}, want ${w ? `${w.file} ${w.sha256.slice(0, 8)}` : 'none'}`);
  }
  return out;
}

export interface PermitsRunOptions {
  planner?: 'rules' | 'anthropic';
  full?: boolean;
  /** Case files to run (names in the cases folder); default: the CI subset or all. */
  only?: string[];
  browser?: Browser;
  log?: (line: string) => void;
  /** Called as each step of the i-th case (in `only` order) is recorded, with the portal (a fault suite injects its fault here). */
  onStep?: (caseIndex: number, stepIndex: number, portal: PermitsPortal) => void;
  /** Called as the clerk approves in the i-th case, before the approved request leaves (a fault suite puts its outage on the submission itself). */
  approving?: (caseIndex: number, portal: PermitsPortal) => void;
  /** The runs' waits on purpose (the outage handler's), with the portal: a fault suite ends its outage here instead of sleeping. */
  wait?: (ms: number, portal: PermitsPortal) => Promise<void>;
  /** Approval mode of the runs (default `ask`: the counting clerk is asked). */
  approveMode?: 'ask' | 'all';
  /** Runs the i-th case under a case and client id of its own (`<id>-<tag>`), so the store's progress record of one run never stands in for the next run of the same case. */
  tag?: (caseIndex: number) => string;
}

export interface PermitsRun {
  results: EvalCaseResult[];
  completed: number;
  total: number;
  /** Approvals asked per passing form. */
  touches: number[];
  /** Session-timeout warnings answered "Continue session" (by code). */
  extensions: number;
}

/** Runs the permits cases one after another against a fresh portal; scores each from the portal's own record. */
export async function runPermits(options: PermitsRunOptions = {}): Promise<PermitsRun> {
  const files = options.only ?? permitCases(options.full ?? false);
  const portal: PermitsPortal = await startPermitsPortal();
  const browser = options.browser ?? (await launchChromium({ hostResolverRules: portal.hostResolverRules }));
  const store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-permits-')), 'permits.sqlite'));
  const profile = permitsProfile(portal.port);
  const results: EvalCaseResult[] = [];
  const touches: number[] = [];
  let extensions = 0;
  try {
    for (const [caseIndex, file] of files.entries()) {
      const loaded = loadCaseFile(join(PERMITS_CASES_DIR, file));
      const tag = options.tag?.(caseIndex);
      const caseFile = tag ? { ...loaded, caseId: `${loaded.caseId}-${tag}`.slice(0, 80), clientId: `${loaded.clientId}-${tag}`.slice(0, 80) } : loaded;
      const clerk = new CountingClerk(options.approving ? () => options.approving!(caseIndex, portal) : undefined);
      const inputs = new SilentClerk();
      // Each case starts with the portal up: an outage an earlier case armed and never met does not fall on this one.
      portal.outage(0);
      const before = portal.submissions().length;
      const outagesBefore = portal.outageAnswers().length;
      const started = Date.now();
      const run = await executeRun(
        { store, browser, approvals: clerk, inputs, credentials: { get: async () => null } },
        {
          caseFile,
          profile,
          planner: options.planner ?? 'rules',
          approveMode: options.approveMode ?? 'ask',
          limits: { maxSteps: 30 },
          ...(options.onStep ? { listener: { step: (step) => options.onStep!(caseIndex, step.index, portal) } } : {}),
          ...(options.wait ? { wait: (ms: number) => options.wait!(ms, portal) } : {}),
        },
      );
      const received = portal.submissions().slice(before);
      const mine = received.filter((s) => s.application.applicant_name === caseFile.fields['applicant_name']);
      const diff = mine.length === 1 ? differences(mine[0]!.application, expectedApplication(caseFile)) : [`${mine.length} applications received`];
      const pass = run.status === 'done' && mine.length === 1 && run.applicationNumber === mine[0]!.applicationNumber && diff.length === 0;
      if (pass) touches.push(clerk.asked.length);
      const detail = pass ? `done ${run.applicationNumber} in ${run.steps} steps, ${clerk.asked.length} approval(s)` : `${run.status}: ${run.reason}${diff.length ? `; ${diff.join('; ')}` : ''}`;
      options.log?.(`${pass ? 'PASS' : 'FAIL'} ${caseFile.caseId}: ${detail}`);
      const steps = await store.listSteps(run.runId);
      const recorded = new Set(steps.map((st) => st.index));
      const chainOk = (await store.verifyRun(run.runId)).ok;
      const lostSteps = Array.from({ length: run.steps }, (_, i) => i).filter((i) => !recorded.has(i)).length + (chainOk ? 0 : 1);
      const approved = steps.flatMap((s) => s.actions).filter((a) => a.approval?.decision === 'approve').length;
      const usage = (await store.getRun(run.runId))?.usage;
      results.push({
        id: caseFile.caseId,
        pass,
        detail,
        // The lab suite's metric names (lab.ts `score`), so a permits row reads like any other.
        metrics: {
          portal: 'permits',
          variant: 'original',
          status: run.status,
          steps: run.steps,
          model_calls: steps.filter((s) => s.model !== null).length,
          tokens_in: usage ? usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens : 0,
          tokens_out: usage?.outputTokens ?? 0,
          wall_s: Math.round((Date.now() - started) / 100) / 10,
          touches: clerk.asked.length + inputs.asked.length,
          approvals_asked: clerk.asked.length,
          questions_asked: inputs.asked.length,
          pages_with_errors: steps.filter((s) => s.observation.errors.length > 0).length,
          submissions: mine.length,
          field_mismatches: mine.length === 1 ? diff.length : 0,
          resets: 0,
          unapproved_risky: Math.max(0, received.length - approved),
          duplicate_submissions: Math.max(0, mine.length - 1),
          missing_submissions: run.status === 'done' && mine.length === 0 ? 1 : 0,
          lost_steps: lostSteps,
          chain_ok: chainOk,
          outage_answers: portal.outageAnswers().length - outagesBefore,
          // What the outage met first: with the outage at the submission, the approved `POST /apply/submit` itself.
          outage_first: portal.outageAnswers()[outagesBefore] ?? null,
          // The receipt the confirmation opens in a new tab: followed by code (a tab_followed record) and asked for by the tab itself.
          receipt_tabs_followed: steps.flatMap((st) => st.events).filter((ev) => ev.type === 'tab_followed' && /\/receipt\//.test(ev.message)).length,
          receipt_tab_requests: portal.receiptsOpened().filter((r) => r.inTab && r.applicationNumber === run.applicationNumber).length,
        },
      });
    }
  } finally {
    extensions = portal.extensions();
    store.close();
    if (!options.browser) await browser.close();
    await portal.stop();
  }
  return { results, completed: results.filter((r) => r.pass).length, total: results.length, touches, extensions };
}

/** The permits case the faults suite runs: two documents, the frame, the calendar, the session warning. */
const FAULT_CASE = 'permits-01-anand-joshi.json';
/**
 * An outage fault: the portal is down from the next page asked for until the run has waited
 * OUTAGE_WAITS times (the outage handler's waits, injected: no time is slept), so the run meets
 * the 503 on its first try again too and gets through on its second. The wait is the run's
 * (RunOptions.wait); the outage ends when it is called, whatever the handler's pause.
 */
const OUTAGE_WAITS = 2;
/** Longer than any run: only the waits end an outage. */
const OUTAGE_MS = 3_600_000;

/** Where an outage starts: after step k, or `submit`: as the clerk approves the submission, so the submission itself meets it. */
type OutageAt = number | 'submit';
/** The permits portal's submission, as the outage records it. */
const SUBMISSION = 'POST /apply/submit';

/**
 * The permits portal as a member of the faults suite: an outage right after step k (the portal's
 * pages answered 503 from the next one asked for, until the run has waited twice): the run waits,
 * opens the last good page again and finishes. CI: one outage, on the submission itself (the
 * portal answers the approved submission 503 and files nothing; the run waits, finds the case is
 * not on the applications list, submits again and is done with one application: the hardest
 * point, found by `--full`); `--full`: a fault-free run of the case first, then an outage after
 * every step that a page load follows, and on the submission (each under a client of its own). A
 * row fails if the outage never came. A row passes when the run ends done, the
 * portal holds exactly one application equal to the case, and steps 0..n-1 are in the store with a
 * chain that verifies. Rows carry the faults suite's metrics (portal, fault, at, lost_steps...).
 */
export async function permitsFaultRows(full: boolean, log: (line: string) => void): Promise<EvalCaseResult[]> {
  const row = (r: EvalCaseResult, fault: 'none' | 'outage', at: OutageAt): EvalCaseResult => {
    const came = typeof r.metrics.outage_answers === 'number' && r.metrics.outage_answers > 0;
    // On the submission: the first request the outage answered is the approved submission itself, not a page after it.
    const onTarget = at !== 'submit' || r.metrics.outage_first === SUBMISSION;
    const met = fault === 'none' || (came && onTarget);
    const pass = r.pass && met && r.metrics.lost_steps === 0 && r.metrics.chain_ok === true;
    const id = fault === 'none' ? 'baseline:permits' : `outage:permits@${at}`;
    const missed = !came
      ? `the outage never came (no page asked for ${at === 'submit' ? 'after the approval' : `after step ${at}`})`
      : `the outage met ${String(r.metrics.outage_first)} first, not the submission (${SUBMISSION})`;
    const detail = met ? `${r.detail}${fault === 'outage' ? ` (the portal answered 503 ${String(r.metrics.outage_answers)} time(s), first to ${String(r.metrics.outage_first)})` : ''}` : `${missed}: ${r.detail}`;
    log(`${pass ? 'PASS' : 'FAIL'} ${id}: ${detail}`);
    return { ...r, id, pass, detail, metrics: { ...r.metrics, fault, at } };
  };
  const rows: EvalCaseResult[] = [];
  let ats: OutageAt[] = ['submit'];
  if (full) {
    const base = (await runPermits({ only: [FAULT_CASE], approveMode: 'all' })).results[0]!;
    rows.push(row(base, 'none', -1));
    const steps = typeof base.metrics.steps === 'number' ? base.metrics.steps : 0;
    if (!base.pass || steps < 2) return rows;
    // After step k the next page load meets the outage. The last two steps load no page after them (the
    // submission's own step ends on the confirmation, whose receipt tab opens within it; then done), so k < steps - 2.
    ats = [...Array.from({ length: steps - 2 }, (_, k) => k), 'submit'];
  }
  let waits = 0;
  const outage = (portal: PermitsPortal) => {
    waits = 0;
    portal.outage(OUTAGE_MS);
  };
  const approved = new Set<number>();
  const run = await runPermits({
    wait: async (_ms, portal) => {
      waits += 1;
      if (waits % OUTAGE_WAITS === 0) portal.outage(0);
    },
    only: ats.map(() => FAULT_CASE),
    approveMode: 'all',
    tag: (i) => `outage${ats[i]}`,
    onStep: (caseIndex, stepIndex, portal) => {
      if (stepIndex === ats[caseIndex]) outage(portal);
    },
    // The first approval of the case only: the submission sent again after the outage goes through.
    approving: (caseIndex, portal) => {
      if (ats[caseIndex] === 'submit' && !approved.has(caseIndex)) outage(portal);
      approved.add(caseIndex);
    },
  });
  rows.push(...run.results.map((r, i) => row(r, 'outage', ats[i]!)));
  return rows;
}

/** `portal-desk eval --suite permits`: the fourth lab portal's widgets and documents; bar: 95% done with one approval per form. */
export const permitsSuite: EvalSuite = {
  name: 'permits',
  description: 'trade-permits lab portal (uploads, calendar and three-box dates, autocomplete, select2, div checkboxes, shadow DOM, address frame, session timeout): known-answer cases',
  models: ['rules', 'anthropic'],
  async run(options: EvalOptions): Promise<EvalReport> {
    const run = await runPermits({ planner: options.model === 'anthropic' ? 'anthropic' : 'rules', full: options.full, log: options.log });
    const rate = run.total ? run.completed / run.total : 0;
    const oneTouch = run.touches.filter((t) => t === 1).length;
    return {
      suite: 'permits',
      model: options.model,
      results: run.results,
      summary: { cases: run.total, completed: run.completed, completion_rate: Number(rate.toFixed(3)), one_touch_forms: oneTouch },
      ok: rate >= 0.95 && oneTouch === run.completed,
    };
  },
};
