import { AnthropicPlanner, type AnthropicOptions } from '../agent/decide/anthropic';
import type { Planner } from '../agent/decide/planner';
import { RulesPlanner } from '../agent/decide/rules/rules-planner';
import type { PortalProfile } from '../shared/portal-profile';

export const PLANNER_KINDS = ['rules', 'anthropic'] as const;
export type PlannerKind = (typeof PLANNER_KINDS)[number];

/** The planner a run uses: the offline rule-based filler by default, Claude when asked. */
export function createPlanner(kind: PlannerKind, profile: PortalProfile, anthropic: AnthropicOptions = {}, env = process.env): Planner {
  switch (kind) {
    case 'rules':
      return new RulesPlanner(profile);
    case 'anthropic':
      return new AnthropicPlanner({ ...anthropic, env });
  }
}
