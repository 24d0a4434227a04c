import type { Action } from './action';
import { formatWords } from './value-format';

/**
 * One action as a line for people: `fill textbox "Owner name" from case field owner_name`. The run's
 * terminal log, the approval wait, the audit report and the console all use these words, so a report
 * reads like the run did. `element` is the control's role and name when the action had one.
 */
export function describeAction(action: Action, element: string | undefined): string {
  switch (action.type) {
    case 'click':
      return `click ${element ?? action.ref}`;
    case 'fill':
      return `fill ${element ?? action.ref} from case field ${action.field}${action.format ? ` (${formatWords(action.format)})` : ''}`;
    case 'select':
      return action.option !== undefined
        ? `select ${JSON.stringify(action.option)} in ${element ?? action.ref} (look-up result, checked against case field ${action.field})`
        : `select in ${element ?? action.ref} from case field ${action.field}`;
    case 'check':
      return `${action.checked ? 'tick' : 'untick'} ${element ?? action.ref}`;
    case 'clear':
      return `clear ${element ?? action.ref} (empty it; nothing is typed)`;
    case 'upload':
      return `attach case document ${action.document} to ${element ?? action.ref}`;
    case 'press':
      return `press ${action.key}`;
    case 'goto':
      return `go to ${action.url}`;
    case 'ask':
      return `ask the clerk (${action.kind.replaceAll('_', ' ')}): ${action.question}`;
    case 'done':
      return `done: ${action.proof}`;
    case 'fail':
      return `give up: ${action.reason}`;
  }
}
