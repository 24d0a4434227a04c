import { AnthropicPlanner, type AnthropicOptions } from '../agent/decide/anthropic';
import type { Planner } from '../agent/decide/planner';
import { RulesPlanner } from '../agent/decide/rules/rules-planner';
import type { PortalProfile } from '../shared/portal-profile';
import type { DemoPortals } from './demo-portals';

export const PLANNER_KINDS = ['rules', 'anthropic', 'adversary'] as const;
export type PlannerKind = (typeof PLANNER_KINDS)[number];

/**
 * The planner a run uses: the offline rule-based filler by default, Claude when asked, and the
 * red-team `adversary` (a model that obeys the page; seed from PORTAL_DESK_ADVERSARY_SEED) for
 * attack runs against the demo portals, which only a root that filled in the demo port has.
 */
export function createPlanner(kind: PlannerKind, profile: PortalProfile, anthropic: AnthropicOptions = {}, env = process.env, demo?: DemoPortals): Planner {
  switch (kind) {
    case 'rules':
      return new RulesPlanner(profile);
    case 'anthropic':
      return new AnthropicPlanner({ ...anthropic, env });
    case 'adversary':
      // A planner that obeys injected instructions has no business on a real portal.
      if (!demo?.portalId(profile)) throw new Error(`The adversary planner runs only against the portal lab, not ${profile.name}; use --model rules or anthropic`);
      return demo.adversary(Number(env.PORTAL_DESK_ADVERSARY_SEED ?? 1) || 1);
  }
}
