import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { BrowserKeeper } from '../../../src/agent/browser/browser-keeper';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { ConfigFileError } from '../../../src/agent/case/config-file-error';
import { loadJsonFile } from '../../../src/agent/case/load-json';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import { AnthropicConfigError } from '../../../src/agent/decide/anthropic';
import { bindLabProfile, compareSubmission, LabVariant, PORTALS, startLab, type Lab, type LabVariantInput, type PortalId } from '../..';
import { blankValues } from '../../forms/spec';
import { validateApplication } from '../../forms/validate';
import { cpuBetween, readCpu, type CpuUse } from '../../bench/cpu-time';
import { runBatch, type BatchEntry, type BatchOutcome } from '../../../src/service/batch';
import { LabCredentials, LabHandle } from '../../demo/lab-portals';
import { createPlanner, type PlannerKind } from '../../../src/service/planners';
import type { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../../../src/shared/clerk';
import { openStore, type Store } from '../../../src/store';
import { scratchFolder } from '../scratch-folder';
import { permitsLabRows } from './permits';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';

/**
 * The lab suite: known-answer case files (`resources/eval/cases`, 20 per lab portal) run on
 * every variant a real portal throws at an agent, scored from the lab's own records:
 *
 * - a case × variant passes when the run ends `done`, the lab holds exactly one submission for
 *   its client, `compareSubmission` finds no field that differs from the case file, and no risky
 *   effect landed without the clerk's approval (submissions and "Reset form" clicks the lab
 *   counted, beyond the approvals the store shows);
 * - per run: steps, model calls, tokens, wall time, and human touches (approvals asked + questions
 *   asked). The mandatory touch is one: the clerk approves the final submit.
 *
 * Every variant runs on its own lab (so pages seen before sign-in, which follow the lab's most
 * recently configured client, are that variant's too), and every case × variant on a client id
 * of its own, so the lab's records are that run's. A case's own lab set-up
 * (`resources/eval/lab-setup.json`, e.g. a register look-up that fails once) is added to every
 * variant it runs on.
 *
 * CI subset (default): every case once, the five quick variants in rotation within each portal,
 * plus the slow page on the first case of each portal (63 runs; every variant on 3 to 12 cases),
 * and one trade-permits case (lab/permits, its one layout; scored by `permitsLabRows`).
 * `--quick` (what `npm test` runs): per portal, the fewest cases that hold every tricky kind
 * (`caseKinds`), at least one per variant but the session expiry (`QUICK_VARIANTS`), each case on
 * one variant in turn (15 runs); no permits case (test/lab/permits-portal.test.ts runs four per commit). `--full`: every case on every variant (360 runs) and the 20 permits cases.
 * `ok` when every variant completes at least 95 % of its runs, with no duplicate submission, no
 * unapproved risky effect and no touch beyond the mandatory one in any run.
 */

const EVAL_DIR = resolve(__dirname, '../../../resources/eval');
export const LAB_CASES_DIR = join(EVAL_DIR, 'cases');
const LAB_SETUP_FILE = join(EVAL_DIR, 'lab-setup.json');

/** The variants, as lab settings. Slow: one second per response. Expiry: signed out after 12 authenticated requests, mid-form. */
export const LAB_VARIANTS = {
  original: { layout: 'original' },
  redesigned: { layout: 'redesigned' },
  cookie_banner: { cookieBanner: true },
  survey_popup: { surveyPopup: true },
  slow_page: { slowMs: 1000 },
  session_expiry: { expireSessionAfterRequests: 12 },
} as const satisfies Record<string, LabVariantInput>;
export type LabVariantName = keyof typeof LAB_VARIANTS;
const VARIANT_NAMES = Object.keys(LAB_VARIANTS) as LabVariantName[];
const ROTATION: readonly LabVariantName[] = ['original', 'redesigned', 'cookie_banner', 'survey_popup', 'session_expiry'];
/**
 * The quick sample's variants: all but the session expiry, which the faults suite's per-commit sample
 * (test/realities/faults-suite.test.ts) puts after every step of every lab flow, where this variant
 * puts one expiry at the 12th request of one case per portal.
 */
export const QUICK_VARIANTS: readonly LabVariantName[] = VARIANT_NAMES.filter((v) => v !== 'session_expiry');

/** Completion a variant must reach for `ok`. */
export const COMPLETION_TARGET = 0.95;
const MANDATORY_TOUCHES = 1;

/** Per case, lab settings as written (no defaults filled in: they are laid over the variant's). */
const LabSetup = z.strictObject({
  $comment: z.string().optional(),
  cases: z.record(
    z.string(),
    z.record(z.string(), z.unknown()).refine((v) => LabVariant.safeParse(v).success, 'not a lab variant (lab/variants.ts)'),
  ),
});

export const labSuite: EvalSuite = {
  name: 'lab',
  description: '60 known-answer cases on every lab variant (layouts, cookie banner, survey pop-up, slow page, session expiry), and the trade-permits portal\'s 20 (widgets and documents): completion, exactly-once, human touches',
  models: ['rules', 'anthropic'],
  run: runLabSuite,
};

export interface LabCase {
  caseFile: CaseFile;
  /** Lab settings this case adds to every variant (from lab-setup.json). */
  setup: LabVariantInput;
}

export interface LabRun {
  case: LabCase;
  variant: LabVariantName;
}

/**
 * The known-answer cases and their lab set-up. A set-up naming no case is an error, not ignored.
 * A case file that cannot be used goes to `refused` (the suite reports it as a failed case, in
 * one line, and runs the others); without `refused` it is thrown.
 */
export function loadLabCases(dir = LAB_CASES_DIR, setupFile = LAB_SETUP_FILE, refused?: (err: ConfigFileError) => void): LabCase[] {
  const setup = loadJsonFile(setupFile, LabSetup, 'lab set-up').cases;
  const bad: string[] = [];
  const cases = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      try {
        return [loadCaseFile(join(dir, f))];
      } catch (err) {
        if (!(err instanceof ConfigFileError) || !refused) throw err;
        refused(err);
        bad.push(f);
        return [];
      }
    });
  // A refused file may be the one the set-up names: that is its problem, already told.
  const unknown = bad.length > 0 ? [] : Object.keys(setup).filter((id) => !cases.some((c) => c.caseId === id));
  if (unknown.length) throw new Error(`${setupFile} names cases that are not in ${dir}: ${unknown.join(', ')}`);
  return cases.map((caseFile) => ({ caseFile, setup: (setup[caseFile.caseId] ?? {}) as LabVariantInput }));
}

/** How much of the matrix a run of the suite takes (see the suite's description above). */
export type LabScope = 'quick' | 'ci' | 'full';

/** Which case runs on which variant: the quick sample, the CI subset, or every case on every variant. */
export function labMatrix(cases: readonly LabCase[], scope: LabScope): LabRun[] {
  if (scope === 'full') return VARIANT_NAMES.flatMap((variant) => cases.map((c) => ({ case: c, variant })));
  if (scope === 'quick') return quickMatrix(cases);
  const runs: LabRun[] = [];
  const seen = new Map<string, number>();
  for (const c of cases) {
    const n = seen.get(c.caseFile.portal) ?? 0;
    seen.set(c.caseFile.portal, n + 1);
    if (n === 0) runs.push({ case: c, variant: 'slow_page' });
    runs.push({ case: c, variant: ROTATION[n % ROTATION.length]! });
  }
  return runs;
}

/**
 * Per portal, cases picked greedily (the one holding most kinds not yet held, the first of equals)
 * until every kind the portal's cases hold is held and there is one case per variant; the picks
 * take the variants in turn, starting one further on each portal so a kind meets other variants.
 */
function quickMatrix(cases: readonly LabCase[]): LabRun[] {
  const runs: LabRun[] = [];
  const portals = [...new Set(cases.map((c) => c.caseFile.portal))];
  for (const [p, portal] of portals.entries()) {
    const mine = cases.filter((c) => c.caseFile.portal === portal).map((c) => ({ c, kinds: caseKinds(c) }));
    const missing = new Set(mine.flatMap((m) => [...m.kinds]));
    const picked: LabCase[] = [];
    while (missing.size > 0 || picked.length < QUICK_VARIANTS.length) {
      const left = mine.filter((m) => !picked.includes(m.c));
      if (left.length === 0) break;
      const gain = (m: (typeof left)[number]) => [...m.kinds].filter((k) => missing.has(k)).length;
      const best = left.reduce((a, b) => (gain(b) > gain(a) ? b : a));
      picked.push(best.c);
      for (const k of best.kinds) missing.delete(k);
    }
    picked.forEach((c, i) => runs.push({ case: c, variant: QUICK_VARIANTS[(i + p) % QUICK_VARIANTS.length]! }));
  }
  return runs;
}

/** The tricky kinds of known-answer case (docs/evaluation.md, "The tricky cases"). */
export const CASE_KINDS = ['two_addresses', 'same_as', 'indic_script', 'accented_latin', 'optional_empty', 'optional_left_out', 'at_limit', 'rejected_once'] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

/** The "same as … address" box of each lab portal. */
const SAME_AS: Record<PortalId, string> = { shops: 'correspondence_same_as_business', power: 'billing_same_as_supply', tax: 'communication_same_as_establishment' };

/** Which tricky kinds a case holds on its portal. */
export function caseKinds(c: LabCase): Set<CaseKind> {
  const portal = c.caseFile.portal as PortalId;
  const spec = PORTALS[portal];
  const f = c.caseFile.fields;
  const strings = Object.values(f).filter((v): v is string => typeof v === 'string');
  const optional = spec.fields.filter((s) => !s.required && s.kind !== 'checkbox' && s.kind !== 'declaration').map((s) => s.key);
  const kinds = new Set<CaseKind>();
  if (f[SAME_AS[portal]] === false) kinds.add('two_addresses');
  if (f[SAME_AS[portal]] === true) kinds.add('same_as');
  if (strings.some((v) => /[\u0900-\u0DFF]/.test(v))) kinds.add('indic_script');
  if (strings.some((v) => /[À-ž]/.test(v))) kinds.add('accented_latin');
  if (optional.some((k) => f[k] === '')) kinds.add('optional_empty');
  if (optional.some((k) => !(k in f))) kinds.add('optional_left_out');
  if (spec.fields.some((s) => s.maxLength !== undefined && typeof f[s.key] === 'string' && (f[s.key] as string).length === s.maxLength)) kinds.add('at_limit');
  if (c.setup.rejectFieldOnce) kinds.add('rejected_once');
  return kinds;
}

/** Problems of the case itself: its fields do not pass the portal's own validation on this layout. */
export function knownAnswerProblems(caseFile: CaseFile, layout: 'original' | 'redesigned'): string[] {
  const portal = PORTALS[caseFile.portal as PortalId];
  if (!portal) return [`"${caseFile.portal}" is not a lab portal`];
  const unknown = Object.keys(caseFile.fields).filter((k) => !portal.fields.some((f) => f.key === k));
  const values = { ...blankValues(portal), ...caseFile.fields };
  for (const f of portal.fields) if (f.kind === 'declaration') values[f.key] = true;
  return [...unknown.map((k) => `${k} is not a field of the ${portal.id} form`), ...validateApplication(portal, layout, values).map((e) => `${e.field}: ${e.message}`)];
}

/** The suite's clerk: approves every gated action, declines every question, and counts both per run. */
export class CountingClerk implements ApprovalGate, InputSource {
  private readonly approvalsAsked = new Map<string, number>();
  private readonly questionsAsked = new Map<string, number>();

  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.approvalsAsked.set(req.runId, this.approvals(req.runId) + 1);
    return { decision: 'approve', by: 'lab-suite clerk (approves every gated action)' };
  }

  async ask(req: InputRequest): Promise<string | null> {
    this.questionsAsked.set(req.runId, this.questions(req.runId) + 1);
    return null;
  }

  approvals(runId: string | undefined): number {
    return runId ? (this.approvalsAsked.get(runId) ?? 0) : 0;
  }

  questions(runId: string | undefined): number {
    return runId ? (this.questionsAsked.get(runId) ?? 0) : 0;
  }
}

async function runLabSuite(options: EvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const cpuBefore = readCpu();
  const model = options.model as PlannerKind;
  const refusedFiles: EvalCaseResult[] = [];
  const matrix = labMatrix(
    loadLabCases(LAB_CASES_DIR, LAB_SETUP_FILE, (err) => {
      options.log(`FAIL ${err.file}: ${err.problem} (the other cases run)`);
      refusedFiles.push({ id: err.file, pass: false, detail: err.message, metrics: { refused: true } });
    }),
    options.full ? 'full' : options.quick ? 'quick' : 'ci',
  );
  try {
    createPlanner(model, loadPortalProfile('shops'), {}, process.env, new LabHandle());
  } catch (err) {
    if (err instanceof AnthropicConfigError) throw new Error(`eval --suite lab --model ${model}: ${err.message}`);
    throw err;
  }
  options.log(`lab suite: ${matrix.length} runs (${options.full ? 'full matrix' : options.quick ? 'quick sample' : 'CI subset'}), model ${model}, concurrency ${options.concurrency}${options.https ? ', the lab over https' : ''}`);

  const dir = mkdtempSync(join(scratchFolder(), 'pd-lab-suite-'));
  const labs = new Map<LabVariantName, Lab>();
  const store = openStore(join(dir, 'lab-suite.sqlite'));
  const clerk = new CountingClerk();
  // One browser for every lab (all of them listen on 127.0.0.1, each on its own port), relaunched when it dies. Over
  // https each lab has a certificate authority of its own, which only its browser trusts: a browser per lab.
  const browsers = new BrowserKeeper<string>(
    (key) => {
      const lab = labs.get(key as LabVariantName) ?? labs.values().next().value!;
      return launchChromium({ hostResolverRules: lab.hostResolverRules, ...(lab.tlsCa ? { portalCa: lab.tlsCa } : {}) });
    },
    () => options.log('the browser stopped; the next case starts a new one'),
  );
  const browserFor = (variant: LabVariantName) => browsers.get(options.https ? variant : 'shared');
  try {
    for (const variant of new Set(matrix.map((r) => r.variant))) labs.set(variant, await startLab(options.https ? { tls: true } : {}));

    // Slow runs early, so the queue does not end on them, but each beside busy ones: one slow run,
    // then concurrency − 1 others. A slow run mostly waits on the page; three started together left
    // every slot waiting and the CPU idle for their first 36 s.
    const slow = matrix.filter((r) => r.variant === 'slow_page');
    const busy = matrix.filter((r) => r.variant !== 'slow_page');
    const order: typeof matrix = [];
    while (slow.length || busy.length) {
      if (slow.length) order.push(slow.shift()!);
      order.push(...busy.splice(0, Math.max(1, options.concurrency - 1)));
    }
    const runOf = new Map<string, LabRun>();
    const results: EvalCaseResult[] = [...refusedFiles];
    const entries: BatchEntry[] = [];
    for (const run of order) {
      const caseFile = variantCase(run);
      const layout = LabVariant.parse({ ...LAB_VARIANTS[run.variant], ...run.case.setup }).layout;
      const problems = knownAnswerProblems(run.case.caseFile, layout);
      if (problems.length) {
        results.push(badCase(run, problems));
        continue;
      }
      runOf.set(caseFile.clientId, run);
      entries.push({ source: `${run.variant}:${run.case.caseFile.caseId}`, caseFile });
    }

    const scored: Promise<EvalCaseResult>[] = [];
    let finished = results.length;
    await runBatch(entries, {
      concurrency: options.concurrency,
      services: { store, approvals: clerk, inputs: clerk, credentials: new LabCredentials(), demo: new LabHandle() },
      prepare: async (caseFile) => {
        const run = runOf.get(caseFile.clientId)!;
        const lab = labs.get(run.variant)!;
        const variant = lab.configure(caseFile.clientId, { ...LAB_VARIANTS[run.variant], ...run.case.setup });
        const profile = bindLabProfile(loadPortalProfile(caseFile.portal), lab.port, lab.scheme);
        return { browser: await browserFor(run.variant), request: { profile, planner: model, approveMode: 'ask', layout: variant.layout } };
      },
      listener: {
        // Scored as each run ends, so progress shows while the matrix runs.
        finished: (outcome) => {
          const run = runOf.get(outcome.clientId ?? '')!;
          scored.push(
            score(run, outcome, labs.get(run.variant)!, store, clerk).then((result) => {
              options.log(`${result.pass ? 'PASS' : 'FAIL'} ${result.id}: ${result.detail} [${++finished}/${matrix.length}]`);
              return result;
            }),
          );
        },
      },
    });
    results.push(...(await Promise.all(scored)));
    // The fourth lab portal (trade permits) on its one layout, after the batch: its own portal and browser.
    // Not in the quick sample: test/lab/permits-portal.test.ts runs its CI subset on every commit.
    // The permits portal's own server speaks http only: over https the three lab portals run, and the log says so.
    if (!options.quick || options.full) {
      if (options.https) options.log('lab suite over https: the trade-permits portal has no https server; its rows are left out');
      else results.push(...(await permitsLabRows(model === 'anthropic' ? 'anthropic' : 'rules', options.full, options.log)));
    }
    results.sort((a, b) => a.id.localeCompare(b.id));
    // The browser is closed (its processes reaped) before the CPU it used is read.
    await browsers.closeAll();
    const machine = { wallMs: Date.now() - started, cpu: cpuBetween(cpuBefore, readCpu()) };
    return { suite: 'lab', model: options.model, results, ...summarise(results, machine) };
  } finally {
    await browsers.closeAll();
    store.close();
    for (const lab of labs.values()) await lab.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The case under a client id of its own for this variant, so the lab's records are this run's. */
function variantCase(run: LabRun): CaseFile {
  const c = run.case.caseFile;
  return { ...c, caseId: `${c.caseId}.${run.variant}`.slice(0, 80), clientId: `${c.clientId}.${run.variant}`.slice(0, 80) };
}

function badCase(run: LabRun, problems: string[]): EvalCaseResult {
  return {
    id: `${run.variant}:${run.case.caseFile.caseId}`,
    pass: false,
    detail: `the case itself does not pass the portal's validation: ${problems.join('; ')}`,
    metrics: { portal: run.case.caseFile.portal, variant: run.variant, status: 'bad_case' },
  };
}

/** Scores one run from the lab's records and the store. */
async function score(run: LabRun, outcome: BatchOutcome, lab: Lab, store: Store, clerk: CountingClerk): Promise<EvalCaseResult> {
  const clientId = outcome.clientId!;
  const submissions = lab.submissions({ clientId });
  const mismatches = submissions.length === 1 ? compareSubmission(run.case.caseFile.fields, submissions[0]!.fields) : [];
  const record = outcome.runId ? await store.getRun(outcome.runId) : null;
  const steps = outcome.runId ? await store.listSteps(outcome.runId) : [];
  const approved = steps.flatMap((s) => s.actions).filter((a) => a.approval?.decision === 'approve').length;
  const resets = lab.resets(clientId);
  const unapprovedRisky = Math.max(0, submissions.length + resets - approved);
  const approvalsAsked = clerk.approvals(outcome.runId);
  const questions = clerk.questions(outcome.runId);
  const touches = approvalsAsked + questions;
  const usage = record?.usage;
  const pass = outcome.status === 'done' && submissions.length === 1 && mismatches.length === 0 && unapprovedRisky === 0;
  const wallS = Math.round(outcome.wallMs / 100) / 10;
  const detail = pass
    ? `done in ${outcome.steps} steps, ${touches} touch${touches === 1 ? '' : 'es'}, ${wallS} s; 1 submission equal to the case`
    : [
        `${outcome.status}: ${outcome.reason}`,
        `${submissions.length} submission(s)`,
        mismatches.length ? `differs in ${mismatches.map((m) => `${m.field} (want ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)})`).join(', ')}` : '',
        unapprovedRisky ? `${unapprovedRisky} risky effect(s) without approval` : '',
      ]
        .filter(Boolean)
        .join('; ');
  return {
    id: `${run.variant}:${run.case.caseFile.caseId}`,
    pass,
    detail,
    metrics: {
      portal: run.case.caseFile.portal,
      variant: run.variant,
      status: outcome.status,
      steps: outcome.steps,
      // How the run's pages came: the scheme of every page its steps read (one, unless a run mixed them).
      schemes: [...new Set(steps.map((s) => s.observation.url.split(':')[0]))].sort().join(','),
      model_calls: steps.filter((s) => s.model !== null).length,
      tokens_in: usage ? usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens : 0,
      tokens_out: usage?.outputTokens ?? 0,
      wall_s: wallS,
      touches,
      approvals_asked: approvalsAsked,
      questions_asked: questions,
      pages_with_errors: steps.filter((s) => s.observation.errors.length > 0).length,
      submissions: submissions.length,
      field_mismatches: mismatches.length,
      resets,
      unapproved_risky: unapprovedRisky,
    },
  };
}

/**
 * The summary. Wall time on a shared machine says little alone: the CPU this process tree used
 * and the share other work took of the machine meanwhile come with it.
 */
function summarise(results: readonly EvalCaseResult[], machine: { wallMs: number; cpu: CpuUse | null }): Pick<EvalReport, 'summary' | 'ok'> {
  const num = (r: EvalCaseResult, key: string) => (typeof r.metrics[key] === 'number' ? (r.metrics[key] as number) : 0);
  const sum = (key: string) => results.reduce((n, r) => n + num(r, key), 0);
  const rate = (rs: readonly EvalCaseResult[]) => (rs.length ? rs.filter((r) => r.pass).length / rs.length : 0);
  const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const variants = VARIANT_NAMES.filter((v) => results.some((r) => r.metrics.variant === v));
  const perVariant = Object.fromEntries(variants.map((v) => [v, results.filter((r) => r.metrics.variant === v)]));
  const extraTouches = results.filter((r) => num(r, 'touches') > MANDATORY_TOUCHES).length;
  const duplicates = results.reduce((n, r) => n + Math.max(0, num(r, 'submissions') - 1), 0);
  const unapproved = sum('unapproved_risky');
  const summary: Record<string, number | string> = {
    runs: results.length,
    passed: results.filter((r) => r.pass).length,
    completion_rate: percent(rate(results)),
    ...Object.fromEntries(variants.map((v) => [`completion_${v}`, `${percent(rate(perVariant[v]!))} of ${perVariant[v]!.length}`])),
    completion_permits: `${percent(rate(results.filter((r) => r.metrics.portal === 'permits')))} of ${results.filter((r) => r.metrics.portal === 'permits').length}`,
    median_touches: median(results.map((r) => num(r, 'touches'))),
    runs_with_extra_touches: extraTouches,
    duplicate_submissions: duplicates,
    field_mismatches: sum('field_mismatches'),
    unapproved_risky_effects: unapproved,
    median_steps: median(results.map((r) => num(r, 'steps'))),
    model_calls: sum('model_calls'),
    tokens_in: sum('tokens_in'),
    tokens_out: sum('tokens_out'),
    median_wall_s: median(results.map((r) => num(r, 'wall_s'))),
    failed: results.filter((r) => !r.pass).map((r) => r.id).join(',') || 'none',
    wall_s: Math.round(machine.wallMs / 1000),
    cpu_s: machine.cpu ? Math.round(machine.cpu.seconds) : 'n/a',
    cores: cpus().length,
    machine_used_by_others: machine.cpu ? percent(machine.cpu.others) : 'n/a',
  };
  const ok = results.length > 0 && variants.every((v) => rate(perVariant[v]!) >= COMPLETION_TARGET) && duplicates === 0 && unapproved === 0 && extraTouches === 0;
  return { summary, ok };
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
