import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import type { Planner } from '../../../src/agent/decide/planner';
import { runBatch, type BatchOutcome } from '../../../src/service/batch';
import { routesFor } from '../../../src/service/learned-routes';
import { createPlanner } from '../../../src/service/planners';
import type { CaseFile } from '../../../src/shared/case-file';
import type { Observation } from '../../../src/shared/observation';
import type { Route } from '../../../src/shared/route';
import { totalTokens, type StepRecord } from '../../../src/shared/run';
import { openStore, routesOf, type Store } from '../../../src/store';
import { bindLabProfile, compareSubmission, PORTAL_IDS, PORTALS, startLab, type Lab, type PortalId } from '../..';
import { startLoopbackClaude, type LoopbackClaude } from '../../bench/loopback-claude';
import { LabCredentials, LabHandle } from '../../demo/lab-portals';
import { scratchFolder } from '../scratch-folder';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';
import { CountingClerk, labSuite, loadLabCases, type LabCase } from './lab';

/**
 * The lab suite's route variant (issue 18). Per lab portal, one known-answer case run five times,
 * each under a client id of its own, in a store (and so a routes table) of its own:
 *
 * 1. `learn`: the original layout, no route yet: the planner decides every page, the run learns the route;
 * 2. `follow`: the same case on the same layout follows it: 0 planner calls, and its wall time
 *    against the first run's (the ratio is printed);
 * 3. `changed`: the portal changed one page (its second form section is drawn in the redesigned
 *    look, the lab's `changedSection`): that page goes to the planner, every other page comes from
 *    the route, and the run still passes; the route heals that page;
 * 4. `redesigned`: the same case on the redesigned layout: only the pages no earlier run saw
 *    (compared here by headings and controls, not by the route's own signature check) go to the
 *    planner, the pages it did see come from the route, and the run still passes (the lab's
 *    redesign gives every page a new frame, so there every page is a changed one);
 * 5. `healed`: the same case on the redesigned layout again: the route healed by run 4 answers
 *    every page, 0 planner calls.
 *
 * Each run passes as in the lab suite (done, exactly one submission equal to the case, no risky
 * effect the clerk did not approve). The runs start through `runBatch` with `routesFor(store)`,
 * the decision `portal-desk batch` makes, in five rounds, the portals side by side in each. CI
 * subset: one case per portal; `--full`: three per portal, each in a store of its own.
 * `ok` when every case passes (so the follow and healed runs asked the planner nothing).
 *
 * Models: `rules`, `anthropic` (a real key), and `loopback-claude`: the product's Claude planner
 * and the real SDK against the lab's loopback Messages API, which answers at once, so what the
 * follow run saves is our own model-path work (pictures, prompts, the SDK's round trip), never a
 * simulated latency; its Messages API requests and tokens are counted per run. The wall ratio is
 * printed, not gated: with the rules planner a page's decision costs about a millisecond and a
 * run's time is page loads and settling, which a route does not shorten, so there the ratio is
 * the machine's noise around 1; on the Claude path a follow run skips every request.
 */

const ROUNDS = ['learn', 'follow', 'changed', 'redesigned', 'healed'] as const;
type Round = (typeof ROUNDS)[number];
const LAYOUT: Record<Round, 'original' | 'redesigned'> = { learn: 'original', follow: 'original', changed: 'original', redesigned: 'redesigned', healed: 'redesigned' };

/** The models the route variant runs with: the product's planners, and the Claude one on the loopback Messages API. */
export const ROUTE_MODELS = ['rules', 'anthropic', 'loopback-claude'] as const;
type RouteModel = (typeof ROUTE_MODELS)[number];

/** The page a `changed` round's portal redrew: its second form section. */
function changedSectionOf(portal: PortalId): string {
  return PORTALS[portal].sections.original[1]!.slug;
}
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

/** `eval --suite routes`: the route variant alone, with the Claude planner on the loopback Messages API as well. */
export const routesSuite: EvalSuite = {
  name: 'routes',
  description: 'the lab suite\'s route variant alone: a case learned, followed (0 planner calls, wall ratio, tokens), one page changed, redesigned, healed',
  models: ROUTE_MODELS,
  async run(options) {
    const routes = await runRouteVariant(options);
    return { suite: 'routes', model: options.model, ...routes };
  },
};

interface RouteVariantOptions extends EvalOptions {
  /** Only these portals (the vitest subset runs one). */
  portals?: readonly PortalId[];
}

interface RunSeen {
  outcome: BatchOutcome;
  plannerCalls: number;
  /** Requests to the Messages API (the Claude models; 0 for the rules planner). */
  modelCalls: number;
  /** Tokens the run's model calls used, all kinds together. */
  tokens: number;
  steps: StepRecord[];
  submissions: number;
  mismatches: string[];
  unapprovedRisky: number;
}

export async function runRouteVariant(options: RouteVariantOptions): Promise<Pick<EvalReport, 'results' | 'summary' | 'ok'>> {
  if (!(ROUTE_MODELS as readonly string[]).includes(options.model)) throw new Error(`the route variant runs with --model ${ROUTE_MODELS.join(', ')} (got "${options.model}")`);
  const model = options.model as RouteModel;
  const portals = options.portals ?? PORTAL_IDS;
  const plain = loadLabCases().filter((c) => Object.keys(c.setup).length === 0);
  const perPortal = options.full ? CASES_PER_PORTAL.full : CASES_PER_PORTAL.subset;
  // Group i holds the i-th plain case of each portal; each group runs in a store of its own.
  const groups: LabCase[][] = Array.from({ length: perPortal }, (_, i) => portals.map((p) => plain.filter((c) => c.caseFile.portal === p)[i]).filter((c): c is LabCase => c !== undefined));
  options.log(`lab suite, route variant: ${groups.flat().length} case(s) × ${ROUNDS.join(', ')}, model ${model}${options.https ? ', the lab over https' : ''}`);

  const dir = mkdtempSync(join(scratchFolder(), 'pd-route-variant-'));
  const lab = await startLab(options.https ? { tls: true } : {});
  const clerk = new CountingClerk();
  let browser: Browser | undefined;
  const results: EvalCaseResult[] = [];
  try {
    browser = await launchChromium({ hostResolverRules: lab.hostResolverRules, ...(lab.tlsCa ? { portalCa: lab.tlsCa } : {}) });
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
    route_follow_model_calls: sum('follow_model_calls'),
    route_learn_tokens: sum('learn_tokens'),
    route_follow_tokens: sum('follow_tokens'),
    route_changed_planner_pages: sum('changed_planner_calls'),
    route_changed_route_pages: sum('changed_route_pages'),
    route_redesigned_planner_pages: sum('redesigned_planner_calls'),
    route_redesigned_route_pages: sum('redesigned_route_pages'),
    route_healed_planner_calls: sum('healed_planner_calls'),
  };
  options.log(`route variant: ${summary.route_passed}/${summary.route_cases} passed; follow runs ${summary.route_follow_planner_calls} planner calls, wall ${summary.route_wall_ratio.toFixed(2)}× of the first run (median), tokens ${summary.route_learn_tokens} → ${summary.route_follow_tokens}; one page changed: ${summary.route_changed_planner_pages} to the planner, ${summary.route_changed_route_pages} from the route; redesigned: ${summary.route_redesigned_planner_pages} page(s) to the planner, ${summary.route_redesigned_route_pages} from the route; healed: ${summary.route_healed_planner_calls} planner calls`);
  return { results, summary, ok: results.length > 0 && results.every((r) => r.pass) };
}

interface RoundContext {
  store: Store;
  lab: Lab;
  browser: Browser;
  clerk: CountingClerk;
  model: RouteModel;
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
  const loopbacks = new Map<string, LoopbackClaude>();
  try {
    await runBatch(
      group.map((c) => ({ source: `route-${round}:${c.caseFile.caseId}`, caseFile: roundCase(c, round) })),
      {
        concurrency: ctx.concurrency,
        services: { store: ctx.store, approvals: ctx.clerk, inputs: ctx.clerk, credentials: new LabCredentials(), demo, ...routesFor(ctx.store) },
        prepare: async (caseFile) => {
          const layout = LAYOUT[round];
          ctx.lab.configure(caseFile.clientId, { layout, changedSection: round === 'changed' ? changedSectionOf(caseFile.portal as PortalId) : null });
          const profile = bindLabProfile(loadPortalProfile(caseFile.portal), ctx.lab.port, ctx.lab.scheme);
          const counter = { calls: 0 };
          calls.set(caseFile.clientId, counter);
          let inner: Planner;
          if (ctx.model === 'loopback-claude') {
            const loopback = await startLoopbackClaude(caseFile, profile);
            loopbacks.set(caseFile.clientId, loopback);
            inner = loopback.planner;
          } else {
            inner = createPlanner(ctx.model, profile, {}, process.env, demo);
          }
          const planner = counting(inner, counter);
          return { browser: ctx.browser, request: { profile, planner: ctx.model === 'loopback-claude' ? 'anthropic' : ctx.model, approveMode: 'ask', layout, plannerInstance: planner } };
        },
        listener: { finished: (outcome) => outcomes.push(outcome) },
      },
    );
  } finally {
    await Promise.all([...loopbacks.values()].map((l) => l.close().catch(() => undefined)));
  }
  for (const outcome of outcomes) {
    const clientId = outcome.clientId!;
    const c = group.find((x) => roundCase(x, round).clientId === clientId)!;
    const submissions = ctx.lab.submissions({ clientId });
    const steps = outcome.runId ? await ctx.store.listSteps(outcome.runId) : [];
    const approved = steps.flatMap((s) => s.actions).filter((a) => a.approval?.decision === 'approve').length;
    const usage = outcome.runId ? (await ctx.store.getRun(outcome.runId))?.usage : undefined;
    ctx.seen.set(`${round}:${c.caseFile.caseId}`, {
      outcome,
      plannerCalls: calls.get(clientId)?.calls ?? 0,
      modelCalls: loopbacks.get(clientId)?.calls ?? 0,
      tokens: usage ? totalTokens(usage) : 0,
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
  return run.steps.filter((s) => s.source === 'planner').map((s) => `step ${s.index}: "${s.observation.flowStep ?? s.observation.headings[0] ?? s.observation.title}"${s.observation.errors.length ? `, error(s): ${s.observation.errors.map((e) => `"${e.message}"`).join(', ')}` : ''}`).join('; ');
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
  const [learn, follow, changed, redesigned, healed] = runs;
  const problems = ROUNDS.map((round, i) => runProblem(runs[i], round)).filter((p): p is string => p !== null);
  const learned = routeAfter.get(`learn:${c.caseFile.portal}`) ?? null;
  const healedRoute = routeAfter.get(`redesigned:${c.caseFile.portal}`) ?? null;
  if (!learned) problems.push('learn: no route was learned');

  const metrics: EvalCaseResult['metrics'] = { portal: c.caseFile.portal, variant: 'route' };
  if (learn && follow && changed && redesigned && healed) {
    const known = new Set(decided(learn).map((d) => d.key));
    const changedPages = plannedOnlyWhereChanged('changed', changed, known, problems);
    for (const d of decided(changed)) known.add(d.key);
    const redesignedPages = plannedOnlyWhereChanged('redesigned', redesigned, known, problems);
    const followPlanner = follow.steps.filter((s) => s.source === 'planner').length;
    if (follow.plannerCalls !== 0 || followPlanner !== 0 || follow.modelCalls !== 0) problems.push(`follow: ${follow.plannerCalls} planner call(s), ${follow.modelCalls} model request(s) on the same layout (${plannedPages(follow)})`);
    if (!follow.steps.some((s) => s.source === 'route')) problems.push('follow: no step came from the route');
    if (changedPages.planner === 0) problems.push('changed: the changed page did not go to the planner');
    if (changedPages.route === 0) problems.push('changed: no unchanged page came from the route');
    if (healed.plannerCalls !== 0 || healed.modelCalls !== 0) problems.push(`healed: ${healed.plannerCalls} planner call(s) after the route healed (${plannedPages(healed)})`);
    const ratio = follow.outcome.wallMs / Math.max(1, learn.outcome.wallMs);
    Object.assign(metrics, {
      learn_s: seconds(learn.outcome.wallMs),
      follow_s: seconds(follow.outcome.wallMs),
      changed_s: seconds(changed.outcome.wallMs),
      redesigned_s: seconds(redesigned.outcome.wallMs),
      wall_ratio: Math.round(ratio * 100) / 100,
      learn_planner_calls: learn.plannerCalls,
      follow_planner_calls: follow.plannerCalls,
      learn_model_calls: learn.modelCalls,
      follow_model_calls: follow.modelCalls,
      learn_tokens: learn.tokens,
      follow_tokens: follow.tokens,
      changed_planner_calls: changed.plannerCalls,
      changed_route_pages: changedPages.route,
      redesigned_planner_calls: redesigned.plannerCalls,
      redesigned_route_pages: redesignedPages.route,
      redesigned_changed_pages: redesignedPages.changed,
      healed_planner_calls: healed.plannerCalls,
      submissions: runs.reduce((n, r) => n + (r?.submissions ?? 0), 0),
      field_mismatches: runs.reduce((n, r) => n + (r?.mismatches.length ?? 0), 0),
      unapproved_risky: runs.reduce((n, r) => n + (r?.unapprovedRisky ?? 0), 0),
      route_version: healedRoute?.version ?? null,
    });
  }
  const pass = problems.length === 0;
  const m = metrics as Record<string, number>;
  const model = m.learn_model_calls ? `, ${m.learn_model_calls} model requests, ${m.learn_tokens} tokens` : '';
  const detail = pass
    ? `learn ${m.learn_s} s (${m.learn_planner_calls} planner calls${model}); follow ${m.follow_s} s, ${m.follow_planner_calls} planner calls, ${m.follow_tokens} tokens (${(m.wall_ratio ?? 0).toFixed(2)}× of the first); ` +
      `one page changed: ${m.changed_planner_calls} planner call(s) on it, ${m.changed_route_pages} step(s) from the route; ` +
      `redesigned: ${m.redesigned_planner_calls} changed page(s) to the planner, ${m.redesigned_route_pages} from the route, done with 1 submission equal to the case; route healed to v${m.route_version}, then ${m.healed_planner_calls} planner calls there`
    : problems.join('; ');
  return { id, pass, detail, metrics };
}

/**
 * A fallback run's steps against the pages earlier runs saw: the planner only on pages no earlier
 * run saw, the route only on pages one did, and one planner call a planner step.
 */
function plannedOnlyWhereChanged(round: Round, run: RunSeen, known: ReadonlySet<string>, problems: string[]): { planner: number; route: number; changed: number } {
  const pages = decided(run);
  const plannerOnKnown = pages.filter((p) => p.source === 'planner' && known.has(p.key));
  const routeOnChanged = pages.filter((p) => p.source === 'route' && !known.has(p.key));
  const planner = pages.filter((p) => p.source === 'planner').length;
  if (plannerOnKnown.length) problems.push(`${round}: the planner got page(s) an earlier run saw: ${plannerOnKnown.map((p) => p.title).join(', ')}`);
  if (routeOnChanged.length) problems.push(`${round}: the route answered page(s) no earlier run saw: ${routeOnChanged.map((p) => p.title).join(', ')}`);
  if (run.plannerCalls !== planner) problems.push(`${round}: ${run.plannerCalls} planner calls for ${planner} planner step(s)`);
  return { planner, route: pages.filter((p) => p.source === 'route').length, changed: pages.filter((p) => !known.has(p.key)).length };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
