import { taskKindOf } from '../../../shared/case-file';
import { block, type GuardRule } from './rule';

/**
 * A read-only task (the case's kind is `status` or `extract`) touches nothing on the portal:
 * every action that acts on the page, or asks the clerk to, is refused here, whoever proposed it.
 * Only `done` and `fail` (which end the run) pass. The read-only runner reads the page itself and
 * never asks the guard for more; this rule is the wall behind it.
 */
export const readOnlyRule: GuardRule = {
  id: 'read-only',
  check(action, ctx) {
    const kind = taskKindOf(ctx.caseFile);
    if (kind === 'fill' || action.type === 'done' || action.type === 'fail') return undefined;
    return block('read-only', `This is a read-only ${kind} task: no ${action.type} is carried out, nothing on the portal is touched.`);
  },
};
