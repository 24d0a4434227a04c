import type { Action } from '../../shared/action';

/** `click button "Submit application"`: the action in words, for the step log and the approval card. */
export function describeAction(action: Action, element: string | undefined): string {
  switch (action.type) {
    case 'click':
      return `click ${element ?? action.ref}`;
    case 'fill':
      return `fill ${element ?? action.ref}`;
    case 'select':
      return `select in ${element ?? action.ref}`;
    case 'check':
      return `${action.checked ? 'tick' : 'untick'} ${element ?? action.ref}`;
    case 'press':
      return `press ${action.key}`;
    case 'goto':
      return `go to ${action.url}`;
    case 'ask':
      return `ask the clerk: ${action.question}`;
    case 'done':
      return `done: ${action.proof}`;
    case 'fail':
      return `give up: ${action.reason}`;
  }
}
