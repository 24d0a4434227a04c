import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import type { Planner } from '../../../src/agent/decide/planner';
import { runBatch, type BatchOutcome } from '../../../src/service/batch';
import { routesFor } from '../../../src/service/learned-routes';
import { createPlanner, type PlannerKind } from '../../../src/service/planners';
import type { CaseFile } from '../../../src/shared/case-file';
import type { Observation } from '../../../src/shared/observation';
import type { Route } from '../../../src/shared/route';
import type { StepRecord } from '../../../src/shared/run';
import { openStore, routesOf, type Store } from '../../../src/store';
import { bindLabProfile, compareSubmission, PORTAL_IDS, startLab, type Lab, type PortalId } from '../..';
import { LabCredentials, LabHandle } from '../../demo/lab-portals';
import { scratchFolder } from '../scratch-folder';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';
import { CountingClerk, labSuite, loadLabCases, type LabCase } from './lab';

/**
 * The lab suite's route variant (issue 18). Per lab portal, one known-answer case run three times,
 * each under a client id of its own, in a store (and so a routes table) of its own:
 *
 * 1. `learn`: the original layout, no route yet: the planner decides every page, the run learns the route;
 * 2. `follow`: the same case on the same layout follows it: 0 planner calls, and its wall time
 *    against the first run's (the ratio is printed);
 * 3. `redesigned`: the same case on the redesigned layout: only the pages the first run never saw
 *    (compared here by headings and controls, not by the route's own signature check) go to the
 *    planner, the pages it did see come from the route, and the run still passes (the lab's
 *    redesign gives every page a new frame, so there every page is a changed one);
 * 4. `healed`: the same case on the redesigned layout again: the route healed by run 3 answers
 *    every page, 0 planner calls.
 *
 * Each run passes as in the lab suite (done, exactly one submission equal to the case, no risky
 * effect the clerk did not approve). The runs start through `runBatch` with `routesFor(store)`,
 * the decision `portal-desk batch` makes, in four rounds, the portals side by side in each. CI
 * subset: one case per portal; `--full`: three per portal, each in a store of its own.
 * `ok` when every case passes (so the follow and healed runs asked the planner nothing). The wall
 * ratio is printed, not gated: with the rules planner a page's decision costs milliseconds and the
 * run's time is page loads and settling, which a route does not shorten, so on a shared machine the
 * ratio is mostly the machine's noise (0.64-1.01 on one run here, 1.18-1.29 on another under a
 * load average of 25); `npm run bench` holds the timing target, and the Claude path is where a
 * route saves time (0.49× on the tax form against the loopback Messages API).
 */

const ROUNDS = ['learn', 'follow', 'redesigned', 'healed'] as const;
type Round = (typeof ROUNDS)[number];
const LAYOUT: Record<Round, 'original' | 'redesigned'> = { learn: 'original', follow: 'original', redesigned: 'redesigned', healed: 'redesigned' };
const CASES_PER_PORTAL = { subset: 1, full: 3 };

/** `eval --suite lab`: the lab suite's matrix, then its route variant. */
export const labWithRoutesSuite: EvalSuite = {
  ...labSuite,
  description: `${labSuite.description}; route variant: a case learned, followed on the same layout (0 planner calls, wall ratio) and on the redesigned one (only changed pages to the planner)`,
  async run(options) {
    const matrix = await labSuite.run(options);
    const routes = await runRouteVariant(options);
    return { ...matrix, results: [...matrix.results, ...routes.results], summary: { ...matrix.summary, ...routes.summary }, ok: matrix.ok && routes.ok };
  },
};

interface RouteVariantOptions extends EvalOptions {
  /** Only these portals (the vitest subset runs one). */
  portals?: readonly PortalId[];
}

interface RunSeen {
  outcome: BatchOutcome;
  plannerCalls: number;
  steps: StepRecord[];
  submissions: number;
  mismatches: string[];
  unapprovedRisky: number;
}

export async function runRouteVariant(options: RouteVariantOptions): Promise<Pick<EvalReport, 'results' | 'summary' | 'ok'>> {
  const model = options.model as PlannerKind;
  const portals = options.portals ?? PORTAL_IDS;
  const plain = loadLabCases().filter((c) => Object.keys(c.setup).length === 0);
  const perPortal = options.full ? CASES_PER_PORTAL.full : CASES_PER_PORTAL.subset;
  // Group i holds the i-th plain case of each portal; each group runs in a store of its own.
  const groups: LabCase[][] = Array.from({ length: perPortal }, (_, i) => portals.map((p) => plain.filter((c) => c.caseFile.portal === p)[i]).filter((c): c is LabCase => c !== undefined));
  options.log(`lab suite, route variant: ${groups.flat().length} case(s) × ${ROUNDS.join(', ')}, model ${model}`);

  const dir = mkdtempSync(join(scratchFolder(), 'pd-route-variant-'));
  const lab = await startLab();
  const clerk = new CountingClerk();
  let browser: Browser | undefined;
  const results: EvalCaseResult[] = [];
  try {
    browser = await launchChromium({ hostResolverRules: lab.hostResolverRules });
    for (const [g, group] of groups.entries()) {
      const store = openStore(join(dir, `routes-${g}.sqlite`));
      try {
        const seen = new Map<string, RunSeen>();
        const routeAfter = new Map<string, Route | null>();
        for (const round of ROUNDS) {
          await runRound(round, group, { store, lab, browser, clerk, model, concurrency: options.concurrency, seen });
          for (const c of group) routeAfter.set(`${round}:${c.caseFile.portal}`, await readRoute(store, c.caseFile));
        }
        for (const c of group) {
          const result = scoreCase(c, seen, routeAfter);
          options.log(`${result.pass ? 'PASS' : 'FAIL'} ${result.id}: ${result.detail}`);
          results.push(result);
        }
      } finally {
        store.close();
      }
    }
  } finally {
    await browser?.close().catch(() => undefined);
    await lab.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  const ratios = results.map((r) => r.metrics.wall_ratio).filter((x): x is number => typeof x === 'number');
  const ratio = median(ratios);
  const sum = (key: string) => results.reduce((n, r) => n + (typeof r.metrics[key] === 'number' ? (r.metrics[key] as number) : 0), 0);
  const summary = {
    route_cases: results.length,
    route_passed: results.filter((r) => r.pass).length,
    route_follow_planner_calls: sum('follow_planner_calls'),
    route_wall_ratio: Math.round(ratio * 100) / 100,
    route_redesigned_planner_pages: sum('redesigned_planner_calls'),
    route_redesigned_route_pages: sum('redesigned_route_pages'),
    route_healed_planner_calls: sum('healed_planner_calls'),
  };
  options.log(`route variant: ${summary.route_passed}/${summary.route_cases} passed; follow runs ${summary.route_follow_planner_calls} planner calls, wall ${summary.route_wall_ratio.toFixed(2)}× of the first run (median); redesigned: ${summary.route_redesigned_planner_pages} page(s) to the planner, ${summary.route_redesigned_route_pages} from the route; healed: ${summary.route_healed_planner_calls} planner calls`);
  return { results, summary, ok: results.length > 0 && results.every((r) => r.pass) };
}

interface RoundContext {
  store: Store;
  lab: Lab;
  browser: Browser;
  clerk: CountingClerk;
  model: PlannerKind;
  concurrency: number;
  seen: Map<string, RunSeen>;
}

/** The case under this round's client id, so the lab's records are this run's. */
function roundCase(c: LabCase, round: Round): CaseFile {
  const f = c.caseFile;
  return { ...f, caseId: `${f.caseId}.route-${round}`.slice(0, 80), clientId: `${f.clientId}.route-${round}`.slice(0, 80) };
}

async function runRound(round: Round, group: readonly LabCase[], ctx: RoundContext): Promise<void> {
  const calls = new Map<string, { calls: number }>();
  const demo = new LabHandle();
  const outcomes: BatchOutcome[] = [];
  await runBatch(
    group.map((c) => ({ source: `route-${round}:${c.caseFile.caseId}`, caseFile: roundCase(c, round) })),
    {
      concurrency: ctx.concurrency,
      services: { store: ctx.store, approvals: ctx.clerk, inputs: ctx.clerk, credentials: new LabCredentials(), demo, ...routesFor(ctx.store) },
      prepare: async (caseFile) => {
        const layout = LAYOUT[round];
        ctx.lab.configure(caseFile.clientId, { layout });
        const profile = bindLabProfile(loadPortalProfile(caseFile.portal), ctx.lab.port);
        const counter = { calls: 0 };
        calls.set(caseFile.clientId, counter);
        const planner = counting(createPlanner(ctx.model, profile, {}, process.env, demo), counter);
        return { browser: ctx.browser, request: { profile, planner: ctx.model, approveMode: 'ask', layout, plannerInstance: planner } };
      },
      listener: { finished: (outcome) => outcomes.push(outcome) },
    },
  );
  for (const outcome of outcomes) {
    const clientId = outcome.clientId!;
    const c = group.find((x) => roundCase(x, round).clientId === clientId)!;
    const submissions = ctx.lab.submissions({ clientId });
    const steps = outcome.runId ? await ctx.store.listSteps(outcome.runId) : [];
    const approved = steps.flatMap((s) => s.actions).filter((a) => a.approval?.decision === 'approve').length;
    ctx.seen.set(`${round}:${c.caseFile.caseId}`, {
      outcome,
      plannerCalls: calls.get(clientId)?.calls ?? 0,
      steps,
      submissions: submissions.length,
      mismatches: submissions.length === 1 ? compareSubmission(c.caseFile.fields, submissions[0]!.fields).map((m) => m.field) : [],
      unapprovedRisky: Math.max(0, submissions.length + ctx.lab.resets(clientId) - approved),
    });
  }
}

function counting(inner: Planner, counter: { calls: number }): Planner {
  return {
    id: inner.id,
    description: inner.description,
    start: (view) => inner.start(view),
    decide: (input) => {
      counter.calls += 1;
      return inner.decide(input);
    },
  };
}

async function readRoute(store: Store, caseFile: CaseFile): Promise<Route | null> {
  const routes = routesOf(store);
  try {
    return await routes.getRoute(caseFile.portal, caseFile.task);
  } catch {
    return null;
  } finally {
    routes.close();
  }
}

/**
 * What a page is, for telling a changed page from one the first run saw, independently of the
 * route's own signature check: flow step, headings and the controls by role and name, digits as
 * `#` and this round's client id taken out.
 */
function pageKey(observation: Observation, clientId: string): string {
  const text = (t: string | null | undefined) => (t ?? '').split(clientId).join('{client}').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
  const controls = observation.controls.map((c) => `${c.role}|${text(c.name)}|${text(c.group)}`).sort();
  return JSON.stringify([text(observation.flowStep), observation.headings.map(text), controls]);
}

/** Steps whose turn was decided (by the route or the planner), with the key of the page they were on. */
function decided(run: RunSeen): Array<{ source: 'route' | 'planner'; key: string; title: string }> {
  const clientId = run.outcome.clientId ?? '';
  return run.steps
    .filter((s) => s.source === 'route' || s.source === 'planner')
    .map((s) => ({ source: s.source as 'route' | 'planner', key: pageKey(s.observation, clientId), title: s.observation.flowStep ?? s.observation.headings[0] ?? s.observation.title }));
}

/** The pages a run's planner got, by title and step, for a failure's line. */
function plannedPages(run: RunSeen): string {
  return run.steps.filter((s) => s.source === 'planner').map((s) => `step ${s.index}: "${s.observation.flowStep ?? s.observation.headings[0] ?? s.observation.title}"${s.observation.errors.length ? `, ${s.observation.errors.length} error(s)` : ''}`).join('; ');
}

function runProblem(run: RunSeen | undefined, round: Round): string | null {
  if (!run) return `${round}: no run`;
  const o = run.outcome;
  if (o.status !== 'done') return `${round}: ${o.status}: ${o.reason}`;
  if (run.submissions !== 1) return `${round}: ${run.submissions} submissions`;
  if (run.mismatches.length) return `${round}: the submission differs in ${run.mismatches.join(', ')}`;
  if (run.unapprovedRisky) return `${round}: ${run.unapprovedRisky} risky effect(s) without approval`;
  return null;
}

function scoreCase(c: LabCase, seen: ReadonlyMap<string, RunSeen>, routeAfter: ReadonlyMap<string, Route | null>): EvalCaseResult {
  const id = `route:${c.caseFile.caseId}`;
  const runs = ROUNDS.map((round) => seen.get(`${round}:${c.caseFile.caseId}`));
  const [learn, follow, redesigned, healed] = runs;
  const problems = ROUNDS.map((round, i) => runProblem(runs[i], round)).filter((p): p is string => p !== null);
  const learned = routeAfter.get(`learn:${c.caseFile.portal}`) ?? null;
  const healedRoute = routeAfter.get(`redesigned:${c.caseFile.portal}`) ?? null;
  if (!learned) problems.push('learn: no route was learned');

  const metrics: EvalCaseResult['metrics'] = { portal: c.caseFile.portal, variant: 'route' };
  if (learn && follow && redesigned && healed) {
    const known = new Set(decided(learn).map((d) => d.key));
    const pages = decided(redesigned);
    const plannerOnKnown = pages.filter((p) => p.source === 'planner' && known.has(p.key));
    const routeOnChanged = pages.filter((p) => p.source === 'route' && !known.has(p.key));
    const followPlanner = follow.steps.filter((s) => s.source === 'planner').length;
    if (follow.plannerCalls !== 0 || followPlanner !== 0) problems.push(`follow: ${follow.plannerCalls} planner call(s) on the same layout (${plannedPages(follow)})`);
    if (!follow.steps.some((s) => s.source === 'route')) problems.push('follow: no step came from the route');
    if (plannerOnKnown.length) problems.push(`redesigned: the planner got page(s) the first run saw: ${plannerOnKnown.map((p) => p.title).join(', ')}`);
    if (routeOnChanged.length) problems.push(`redesigned: the route answered page(s) the first run never saw: ${routeOnChanged.map((p) => p.title).join(', ')}`);
    if (redesigned.plannerCalls !== pages.filter((p) => p.source === 'planner').length) problems.push(`redesigned: ${redesigned.plannerCalls} planner calls for ${pages.filter((p) => p.source === 'planner').length} planner step(s)`);
    if (healed.plannerCalls !== 0) problems.push(`healed: ${healed.plannerCalls} planner call(s) after the route healed (${plannedPages(healed)})`);
    const ratio = follow.outcome.wallMs / Math.max(1, learn.outcome.wallMs);
    Object.assign(metrics, {
      learn_s: seconds(learn.outcome.wallMs),
      follow_s: seconds(follow.outcome.wallMs),
      redesigned_s: seconds(redesigned.outcome.wallMs),
      wall_ratio: Math.round(ratio * 100) / 100,
      learn_planner_calls: learn.plannerCalls,
      follow_planner_calls: follow.plannerCalls,
      redesigned_planner_calls: redesigned.plannerCalls,
      redesigned_route_pages: pages.filter((p) => p.source === 'route').length,
      redesigned_changed_pages: pages.filter((p) => !known.has(p.key)).length,
      healed_planner_calls: healed.plannerCalls,
      submissions: runs.reduce((n, r) => n + (r?.submissions ?? 0), 0),
      field_mismatches: runs.reduce((n, r) => n + (r?.mismatches.length ?? 0), 0),
      unapproved_risky: runs.reduce((n, r) => n + (r?.unapprovedRisky ?? 0), 0),
      route_version: healedRoute?.version ?? null,
    });
  }
  const pass = problems.length === 0;
  const m = metrics as Record<string, number>;
  const detail = pass
    ? `learn ${m.learn_s} s (${m.learn_planner_calls} planner calls); follow ${m.follow_s} s, ${m.follow_planner_calls} planner calls (${(m.wall_ratio ?? 0).toFixed(2)}× of the first); ` +
      `redesigned: ${m.redesigned_planner_calls} changed page(s) to the planner, ${m.redesigned_route_pages} from the route, done with 1 submission equal to the case; route healed to v${m.route_version}, then ${m.healed_planner_calls} planner calls there`
    : problems.join('; ');
  return { id, pass, detail, metrics };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
