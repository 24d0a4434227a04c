import type { Control } from '../../../shared/observation';
import { needsApproval, type GuardRule } from './rule';
import { riskyWordIn } from './risky-words';

/** Keys that act on whatever control has focus: Enter submits a form, Space presses a button. */
const ACTIVATING_KEYS = new Set(['Enter', 'Space']);

function gateReason(control: Control): string {
  return `The portal marks ${control.label} as one for a person to do (data-agent-gate="human"); the clerk approves it.`;
}

/**
 * Clicks the clerk approves first:
 * - on a control whose name contains one of the profile's risky words, on word boundaries
 *   ("Submit application", "Pay now", "Cancel application"; not "Submitted applications", "Payee");
 * - on a control with no name at all (code cannot tell what it does);
 * - on a gated control (data-agent-gate="human"). A gate covers every action on the control:
 *   fill, select and check too.
 * `press Enter` and `press Space` always wait for the clerk: they act on whichever control has
 * focus, and the read does not say which one that is. Other keys (Tab, Escape, arrows) pass.
 * Ticking checkboxes is the declaration rule's business.
 */
export const riskyControlRule: GuardRule = {
  id: 'risky-control',
  check(action, ctx) {
    if (action.type === 'press') {
      if (!ACTIVATING_KEYS.has(action.key)) return undefined;
      return needsApproval(
        'risky-control',
        `${action.key} acts on whichever control has focus (it can send a form), and code cannot see which control that is; the clerk approves it.`,
      );
    }
    if (action.type !== 'click' && action.type !== 'fill' && action.type !== 'select' && action.type !== 'check') return undefined;
    const control = ctx.control(action.ref);
    if (!control) return undefined;
    if (control.gated) return needsApproval('risky-control', gateReason(control));
    if (action.type !== 'click') return undefined;
    const word = riskyWordIn(control.name, ctx.profile.riskyWords);
    if (word) return needsApproval('risky-control', `${control.label} says “${word}”: the clerk approves that before it is clicked.`);
    if (control.name.trim() === '') {
      return needsApproval('risky-control', `${control.label} has no name, so code cannot tell what clicking it does; the clerk approves it.`);
    }
    return undefined;
  },
};
