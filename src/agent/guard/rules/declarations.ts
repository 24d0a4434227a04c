import type { CaseFile } from '../../../shared/case-file';
import type { Control } from '../../../shared/observation';
import { allow, needsApproval, type GuardRule } from './rule';
import { foldForMatching, riskyWordsIn } from './risky-words';

/**
 * Words that make a checkbox a declaration: ticking it states something on the client's behalf.
 * The profile's risky words count too ("I confirm", "Pay by card").
 */
const DECLARATION_WORDS = [
  'declare', 'declaration', 'certify', 'agree', 'consent', 'accept', 'undertake', 'undertaking',
  'authorise', 'authorize', 'acknowledge', 'affirm', 'attest', 'solemnly', 'terms',
];

/**
 * A listed declaration shorter than this many words ("I", "I agree") would cover too many
 * different boxes; it covers none, and those boxes wait for the clerk.
 */
const MIN_DECLARATION_WORDS = 3;

/** The words of a label as a reader sees them, lower-case, separated by single spaces. */
function words(text: string): string {
  return foldForMatching(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ');
}

/**
 * What in the case covers this label, if anything: a listed declaration found as whole words
 * inside the label, or a yes/no case field set to yes whose name or alias is the label.
 */
export function listedDeclaration(control: Control, caseFile: Pick<CaseFile, 'declarations' | 'fields' | 'aliases'>): string | undefined {
  const label = words(control.name);
  const declaration = caseFile.declarations.find((d) => {
    const wanted = words(d);
    return wanted.split(' ').length >= MIN_DECLARATION_WORDS && ` ${label} `.includes(` ${wanted} `);
  });
  if (declaration) return declaration;
  for (const [field, value] of Object.entries(caseFile.fields)) {
    if (value !== true) continue;
    const names = [field.replace(/_/g, ' '), ...(caseFile.aliases[field] ?? [])];
    const hit = names.find((name) => words(name) !== '' && words(name) === label);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The case field behind a radio choice, if the case names it: a field whose name or alias is the
 * radio's group and whose value is the radio's own name ("Payment mode" = "UPI"). Choosing it
 * states what the case already says, so a risky word in the group's name is no reason to ask.
 */
function caseChoice(control: Control, caseFile: CaseFile): string | undefined {
  if (control.role !== 'radio' || !control.group) return undefined;
  const group = words(control.group);
  const choice = words(control.name);
  for (const [field, value] of Object.entries(caseFile.fields)) {
    if (typeof value !== 'string' || words(value) !== choice) continue;
    const names = [field.replace(/_/g, ' '), ...(caseFile.aliases[field] ?? [])];
    if (names.some((name) => words(name) === group)) return field;
  }
  return undefined;
}

/**
 * Ticking a checkbox or choosing a radio whose name reads like a declaration or contains a risky
 * word is allowed only when the case covers it (a listed declaration, which the clerk confirmed
 * with the client, or a yes/no field set to yes and named like the box), and only if every risky
 * or declaration word in the label is also in the listed text: "I declare the details are true"
 * in the case does not cover "I declare the details are true and agree to pay a late fee".
 * A radio choice the case names field and value for passes. Anything else waits for the clerk. Unticking is always allowed (it states nothing), and
 * ordinary choices ("Same as business address", "Proprietorship") pass.
 */
export const declarationRule: GuardRule = {
  id: 'declaration',
  check(action, ctx) {
    if (action.type !== 'check' || !action.checked) return undefined;
    const control = ctx.control(action.ref);
    if (!control) return undefined;
    const text = [control.name, control.group ?? ''].join(' ');
    const risky = riskyWordsIn(text, ctx.profile.riskyWords);
    const declarationWords = riskyWordsIn(text, DECLARATION_WORDS);
    if (risky.length === 0 && declarationWords.length === 0) return undefined;
    const field = caseChoice(control, ctx.caseFile);
    if (field) return allow('declaration', `Chooses what the case says (${field} = “${control.name}”).`);
    const listed = listedDeclaration(control, ctx.caseFile);
    if (listed) {
      const meaningful = [...ctx.profile.riskyWords, ...DECLARATION_WORDS];
      const uncovered = riskyWordsIn(control.name, meaningful).filter((w) => riskyWordsIn(listed, [w]).length === 0);
      if (uncovered.length === 0) return allow('declaration', `Ticks what the case lists (“${listed}”).`);
      return needsApproval(
        'declaration',
        `${control.label} goes beyond what the case lists (“${listed}”): it also says “${uncovered.join('”, “')}”; the clerk approves it.`,
      );
    }
    const why = risky[0] ?? declarationWords[0]!;
    return needsApproval(
      'declaration',
      `${control.label} reads as a declaration or a risky choice (“${why}”) that the case does not list; the clerk confirms it with the client.`,
    );
  },
};
