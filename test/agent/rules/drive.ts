import type { Page } from 'playwright-core';
import { executeAction } from '../../../src/agent/act/executor';
import type { RulesPlanner } from '../../../src/agent/decide/rules/rules-planner';
import { checkAction, resolveValue } from '../../../src/agent/guard/guard';
import type { LivePageRead, PageObserver } from '../../../src/agent/observe/observer';
import type { Action } from '../../../src/shared/action';
import type { CaseFile } from '../../../src/shared/case-file';
import type { PortalProfile } from '../../../src/shared/portal-profile';
import type { Verdict } from '../../../src/shared/verdict';

/** What a driven form did: each turn's actions, each action's verdict, the approvals given, and how it ended. */
export interface Drive {
  page: Page;
  turns: Action[][];
  verdicts: { action: Action; verdict: Verdict }[];
  approvals: number;
  end: Action | undefined;
}

/**
 * The run loop's order on an unseen form, with a clerk who approves what is gated: read, plan,
 * guard, act, until the planner says done, fail or ask (or `maxTurns`, or `stopAt` says so of a
 * read). A blocked action or one that does not complete fails the test.
 */
export async function driveRules(
  page: Page,
  options: { planner: RulesPlanner; profile: PortalProfile; caseFile: CaseFile; observer: PageObserver; maxTurns: number; stopAt?: (read: LivePageRead) => boolean | Promise<boolean> },
): Promise<Drive> {
  const { planner, profile, caseFile, observer } = options;
  const result: Drive = { page, turns: [], verdicts: [], approvals: 0, end: undefined };
  for (let step = 0; step < options.maxTurns; step++) {
    const read = await observer.read(page);
    if (await options.stopAt?.(read)) return result;
    const { turn } = await planner.decide({ step, observation: read.observation, previous: [], notes: [], screenshot: async () => new Uint8Array() });
    result.turns.push(turn.actions);
    for (const action of turn.actions) {
      if (action.type === 'done' || action.type === 'fail' || action.type === 'ask') {
        result.end = action;
        return result;
      }
      const verdict = checkAction(action, { profile, caseFile, clerkValues: {}, observation: read.observation, control: (ref) => read.control(ref) });
      result.verdicts.push({ action, verdict });
      if (verdict.verdict === 'block') throw new Error(`blocked: ${verdict.reason}`);
      if (verdict.verdict === 'needs_approval') result.approvals += 1;
      const value = action.type === 'fill' || action.type === 'select' ? resolveValue(action, { caseFile, clerkValues: {} }) : undefined;
      const outcome = await executeAction(page, read, action, value);
      if (outcome.status !== 'done') throw new Error(`${action.type} ended ${outcome.status}: ${outcome.message}`);
    }
  }
  return result;
}
