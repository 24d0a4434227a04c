import { block, allow, type GuardRule } from './rule';

/** Input types whose value `clear` never empties, and why. */
const NOT_CLEARED: Readonly<Record<string, string>> = {
  password: 'it is a password box: signing in is done by code, never by the agent',
  file: 'it is a file upload: documents are attached with upload',
  checkbox: 'it is a checkbox: untick it with check',
  radio: 'it is a radio button: choose another option of its group with check',
  hidden: 'it is a hidden field, not the agent’s to change',
  submit: 'it is a button',
  button: 'it is a button',
  reset: 'it is a button',
};

/** Roles of controls that hold typed text. */
const TEXT_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);

/**
 * `clear` empties a text box holding a stale or wrong value; it types nothing. Only a control
 * that holds typed text may be cleared: not a password box, a file upload, a checkbox, a radio
 * button, a drop-down list (change it with select) or a button.
 */
export const clearRule: GuardRule = {
  id: 'clear',
  check(action, ctx) {
    if (action.type !== 'clear') return undefined;
    const control = ctx.control(action.ref);
    if (!control) return undefined;
    const refusal = control.inputType ? NOT_CLEARED[control.inputType.toLowerCase()] : undefined;
    if (refusal) return block('clear', `${control.label} is not cleared: ${refusal}.`);
    if (control.role === 'combobox' && control.options) return block('clear', `${control.label} is a drop-down list: choose the right option with select instead.`);
    if (!TEXT_ROLES.has(control.role)) return block('clear', `${control.label} holds no typed text; only a text box is cleared.`);
    return allow('clear', `Empties ${control.label}${control.value ? ` (it holds “${control.value.slice(0, 60)}”)` : ''}; nothing is typed.`);
  },
};
