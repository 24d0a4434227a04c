import type { Action } from '../shared/action';

/**
 * One action as a line for people: `fill textbox "Owner name" from case field owner_name`.
 * The same words the run's terminal log uses, so a report reads like the run did.
 */
export function describeAction(action: Action, element: string | undefined): string {
  switch (action.type) {
    case 'click':
      return `click ${element ?? action.ref}`;
    case 'fill':
      return `fill ${element ?? action.ref} from case field ${action.field}`;
    case 'select':
      return `select in ${element ?? action.ref} from case field ${action.field}`;
    case 'check':
      return `${action.checked ? 'tick' : 'untick'} ${element ?? action.ref}`;
    case 'press':
      return `press ${action.key}`;
    case 'goto':
      return `go to ${action.url}`;
    case 'ask':
      return `ask the clerk (${action.kind.replace('_', ' ')}): ${action.question}`;
    case 'done':
      return `done: ${action.proof}`;
    case 'fail':
      return `give up: ${action.reason}`;
  }
}
