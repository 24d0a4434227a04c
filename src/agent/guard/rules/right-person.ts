import { groupNamedIn, groupPath, groupsOf, parseGroupPath, personWords } from '../../../shared/case-groups';
import type { GuardContext } from '../guard-context';
import { allow, block, type GuardRule } from './rule';

/**
 * Right value, right box: where the page asks the same questions for several people (two
 * partners' "Full name" boxes), a value goes only into its own person's block. The observer ties
 * each control to its block (`Control.section`: "Partner 2", ordinal 2); a case value of
 * `partners[0]` (person 1) typed, chosen or ticked in person 2's block is refused, and so is a
 * value of another group ("Director 2" for `partners[1]`), or a plain field where the case has
 * that person's own value (the applicant's `full_name` into partner 2's "Full name").
 * Controls in no person's block, and fields of no group, are none of this rule's business.
 */
export const rightPersonRule: GuardRule = {
  id: 'right-person',
  check(action, ctx) {
    if (action.type !== 'fill' && action.type !== 'select' && action.type !== 'check') return undefined;
    if (action.field === undefined) return undefined;
    const section = ctx.control(action.ref)?.section;
    if (!section) return undefined;
    const names = caseFieldNames(ctx);
    const groups = groupsOf(names);
    if (groups.size === 0) return undefined;
    const box = `${ctx.control(action.ref)!.label}, which belongs to ${section.name ? `"${section.name}"` : `block ${section.ordinal}`} (person ${section.ordinal})`;
    const named = groupNamedIn(section.name, groups.keys());
    const path = parseGroupPath(action.field);
    if (!path) {
      // A plain field into a person's block: refused where the case holds that person's own answer.
      const candidates = named ? [named] : [...groups.keys()];
      const own = candidates.map((g) => groupPath(g, section.ordinal - 1, action.field!)).filter((p) => names.has(p));
      if (own.length === 0) return undefined;
      return block('right-person', `Case field "${action.field}" is not this person's: ${box}; the case has ${own.map((p) => `"${p}"`).join(' or ')} for that person.`);
    }
    if (path.index + 1 !== section.ordinal) {
      const right = groupPath(path.group, section.ordinal - 1, path.member);
      const instead = names.has(right) ? ` Use "${right}" there.` : ` The case has no "${right}".`;
      return block('right-person', `"${action.field}" is ${personWords(path)}'s value, and the box is ${box}: another person's box.${instead}`);
    }
    if (named && named !== path.group) {
      return block('right-person', `"${action.field}" is ${personWords(path)}'s value, and the box is ${box}, a block of "${named}", not "${path.group}".`);
    }
    return allow('right-person', `"${action.field}" is ${personWords(path)}'s value, and ${box} is that person's block.`);
  },
};

function caseFieldNames(ctx: Pick<GuardContext, 'caseFile' | 'clerkValues'>): Set<string> {
  return new Set([...Object.keys(ctx.caseFile.fields), ...Object.keys(ctx.clerkValues)]);
}
