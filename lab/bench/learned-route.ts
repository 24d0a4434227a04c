import { join, resolve } from 'node:path';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import type { Planner } from '../../src/agent/decide/planner';
import { RulesPlanner } from '../../src/agent/decide/rules/rules-planner';
import { executeRun } from '../../src/service/run-service';
import type { ApprovalGate, InputSource } from '../../src/shared/clerk';
import { totalTokens } from '../../src/shared/run';
import { openRouteStore } from '../../src/store';
import { bindLabProfile, type PortalId } from '..';
import { LabCredentials } from '../demo/lab-portals';
import type { LabFormEnv } from './lab-form';
import { LAB_FORMS } from './lab-form';
import { startLoopbackClaude } from './loopback-claude';
import { median } from './stats';

/**
 * Learned routes: one lab case run twice on the same layout, the second time following the route
 * the first learned, with each planner: the rules planner, and the product's Claude planner with
 * the real SDK against the lab's loopback Messages API (which answers at once, so what a route run
 * saves there is our own model-path work: pictures, prompts, the round trip; never a simulated
 * latency). Each pair uses a client id of its own and a route store of its own, so the first run
 * of a pair always asks the planner and the second never should. Planner calls are counted on the
 * planner itself, Messages API requests on the loopback server, tokens from the stored run; wall
 * time is the whole run (sign-in, code's checkpoints included). The target is the Claude path's:
 * a rules decision costs about a millisecond, so its ratio is printed as the machine's noise.
 */

const CASES = resolve(__dirname, '../../resources/cases');

export type RoutePlanner = 'rules' | 'loopback-claude';

export interface RoutePair {
  portal: PortalId;
  planner: RoutePlanner;
  /** Messages API requests and tokens of each run (0 for the rules planner). */
  firstModelCalls: number;
  routeModelCalls: number;
  firstTokens: number;
  routeTokens: number;
  firstMs: number;
  routeMs: number;
  firstPlannerCalls: number;
  routePlannerCalls: number;
  /** Both runs done with exactly one submission each. */
  done: boolean;
}

export interface LearnedRouteBench {
  pairs: RoutePair[];
  /** Median of route run / first run wall time, per pair, of each planner. */
  wallRatio: Record<RoutePlanner, number>;
  /** Planner calls of every route run together (the target: 0). */
  routePlannerCalls: number;
  /** Messages API requests of every route run together (the target: 0). */
  routeModelCalls: number;
  allDone: boolean;
}

const PLANNERS: readonly RoutePlanner[] = ['rules', 'loopback-claude'];

const approveAtOnce: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'bench clerk' }) };
const answerNothing: InputSource = { ask: async () => null };
let seq = 0;

function counting(inner: Planner): Planner & { calls: number } {
  const planner = {
    calls: 0,
    id: inner.id,
    description: inner.description,
    start: (view: Parameters<Planner['start']>[0]) => inner.start(view),
    decide: (input: Parameters<Planner['decide']>[0]) => {
      planner.calls += 1;
      return inner.decide(input);
    },
  };
  return planner;
}

export async function measureLearnedRoute(env: LabFormEnv & { dir: string }, portals: readonly PortalId[], pairsPerPortal: number): Promise<LearnedRouteBench> {
  const pairs: RoutePair[] = [];
  for (const kind of PLANNERS) {
    for (const portal of portals) {
      for (let i = 0; i < pairsPerPortal; i++) {
        const routes = openRouteStore(join(env.dir, `routes-${kind}-${portal}-${i}-${process.pid}.sqlite`));
        try {
          const base = loadCaseFile(join(CASES, LAB_FORMS[portal]));
          const profile = bindLabProfile(loadPortalProfile(base.portal), env.lab.port);
          const one = async () => {
            const tag = `route-${process.pid}-${++seq}`;
            const caseFile = { ...base, caseId: `${base.caseId}-${tag}`, clientId: `${base.clientId}-${tag}` };
            env.lab.configure(caseFile.clientId, {});
            const loopback = kind === 'loopback-claude' ? await startLoopbackClaude(caseFile, profile) : undefined;
            try {
              const planner = counting(loopback?.planner ?? new RulesPlanner(profile));
              const started = performance.now();
              const finished = await executeRun(
                { store: env.store, browser: env.browser, approvals: approveAtOnce, inputs: answerNothing, credentials: new LabCredentials(), routes },
                { caseFile, profile, planner: loopback ? 'anthropic' : 'rules', approveMode: 'all', plannerInstance: planner },
              );
              const ms = performance.now() - started;
              const usage = (await env.store.getRun(finished.runId))?.usage;
              const tokens = usage ? totalTokens(usage) : 0;
              return { ms, calls: planner.calls, modelCalls: loopback?.calls ?? 0, tokens, ok: finished.status === 'done' && env.lab.submissions({ clientId: caseFile.clientId }).length === 1 };
            } finally {
              await loopback?.close();
            }
          };
          const first = await one();
          const second = await one();
          pairs.push({
            portal,
            planner: kind,
            firstMs: first.ms,
            routeMs: second.ms,
            firstPlannerCalls: first.calls,
            routePlannerCalls: second.calls,
            firstModelCalls: first.modelCalls,
            routeModelCalls: second.modelCalls,
            firstTokens: first.tokens,
            routeTokens: second.tokens,
            done: first.ok && second.ok,
          });
        } finally {
          routes.close();
        }
      }
    }
  }
  const ratio = (kind: RoutePlanner) => Math.round(median(pairs.filter((p) => p.planner === kind).map((p) => p.routeMs / p.firstMs)) * 100) / 100;
  return {
    pairs,
    wallRatio: { rules: ratio('rules'), 'loopback-claude': ratio('loopback-claude') },
    routePlannerCalls: pairs.reduce((n, p) => n + p.routePlannerCalls, 0),
    routeModelCalls: pairs.reduce((n, p) => n + p.routeModelCalls, 0),
    allDone: pairs.every((p) => p.done),
  };
}
