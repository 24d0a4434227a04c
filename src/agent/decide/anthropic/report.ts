import type { Action } from '../../../shared/action';
import type { StepAction } from '../../../shared/run';
import { neutraliseDelimiters } from './page-block';

function describeAction(action: Action): string {
  switch (action.type) {
    case 'click':
      return `click ${action.ref}`;
    case 'fill':
      return `fill ${action.ref} with ${action.field}${action.format ? ` as ${action.format}` : ''}`;
    case 'select':
      return `select ${action.ref} with ${action.field}`;
    case 'clear':
      return `clear ${action.ref}`;
    case 'upload':
      return `upload ${action.document} to ${action.ref}`;
    case 'check':
      return `check ${action.ref} ${action.checked ? 'on' : 'off'}${action.field ? ` for ${action.field}` : ''}`;
    case 'press':
      return `press ${action.key}`;
    case 'goto':
      return `goto ${action.url}`;
    case 'ask':
      return `ask (${action.kind}${action.field ? `, ${action.field}` : ''})`;
    case 'done':
      return 'done';
    case 'fail':
      return 'fail';
  }
}

/**
 * What happened to the previous turn's actions, in order: the guard's verdict and the executor's
 * outcome. Element labels and executor messages can quote the page, so delimiters are neutralised.
 */
export function renderPrevious(previous: StepAction[]): string {
  if (previous.length === 0) return 'Your previous actions: none ran.';
  const lines = previous.map((step, i) => {
    const element = step.element ? ` on ${step.element}` : '';
    const verdict = step.verdict.verdict === 'allow' ? 'allowed' : step.verdict.verdict === 'block' ? `blocked by ${step.verdict.rule}: ${step.verdict.reason}` : `needs approval (${step.verdict.rule}: ${step.verdict.reason})`;
    const approval = step.approval ? `; clerk ${step.approval.decision === 'approve' ? 'approved' : 'denied'}${step.approval.note ? ` (${step.approval.note})` : ''}` : '';
    const outcome = `${step.outcome.status}${step.outcome.message ? `: ${step.outcome.message}` : ''}`;
    return `${i + 1}. ${describeAction(step.action)}${element} → ${verdict}${approval} → ${outcome}`;
  });
  return neutraliseDelimiters(['What happened to your previous actions (guard verdict → outcome):', ...lines].join('\n'));
}

/** One line of the run's story: a turn's reasoning and what happened to its actions. */
export function turnLine(step: number, reasoning: string, previous: StepAction[]): string {
  const outcomes = previous.map((done) => `${describeAction(done.action)} ${done.outcome.status}`).join('; ');
  return `step ${step}: ${reasoning}${outcomes ? ` → ${outcomes}` : ''}`;
}

/** The summary that opens a restarted conversation: every earlier turn, one line each. */
export function renderEarlierTurns(story: string[]): string | null {
  if (story.length === 0) return null;
  return neutraliseDelimiters(
    [
      'The conversation so far was shortened to fit the context budget. Your earlier turns (your reasoning → what happened to the actions), oldest first:',
      ...story.slice(-40).map((line) => `- ${line}`),
    ].join('\n'),
  );
}

export function renderNotes(notes: string[]): string | null {
  if (notes.length === 0) return null;
  return neutraliseDelimiters(['Notes from code since your last turn:', ...notes.map((note) => `- ${note}`)].join('\n'));
}
