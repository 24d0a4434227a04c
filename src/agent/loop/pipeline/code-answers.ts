import type { Action } from '../../../shared/action';
import { maskCode } from '../../portal/one-time-code';
import { proofOnPage } from '../done-proof';
import { failed } from '../outcomes';
import type { RunContext } from '../run-context';
import { ended, next, ran, type ActionStage, type PendingAction, type StageResult } from './pending-action';

const CONFIRMED = /^(y|yes|ok|confirm|confirmed)$/i;

/**
 * The actions code answers itself: `done` is checked against the page (proof) and ends the run,
 * `fail` ends it, `ask` goes to the clerk. Every other action goes on to approval and the act.
 */
export const codeAnswersStage: ActionStage = {
  id: 'code-answers',
  async run(p, run) {
    const action = p.action;
    switch (action.type) {
      case 'done': {
        const proof = await proofOnPage(p.read, run);
        if (!proof.ok && proof.end) return ended(p, { status: 'error', message: `done refused: ${proof.reason}` }, failed(`Not done: ${proof.reason}`));
        if (!proof.ok) return ran(p, { status: 'error', message: `done refused: ${proof.reason}` });
        const number = proof.applicationNumber;
        return ended(p, { status: 'done', message: `proof: ${number}` }, { status: 'done', reason: `Submitted: application number ${number}`, applicationNumber: number });
      }
      case 'fail':
        return ended(p, { status: 'done' }, failed(`The planner gave up: ${action.reason}`));
      case 'ask':
        return answerAsk(action, p, run);
      default:
        return next(p);
    }
  },
};

async function answerAsk(action: Extract<Action, { type: 'ask' }>, p: PendingAction, run: RunContext): Promise<StageResult> {
  if (action.kind === 'missing_value' && !action.field) {
    return ran(p, { status: 'error', message: 'ask missing_value needs the case field the answer fills' });
  }
  const answer = await run.askClerk(action.kind, action.question, action.field);
  if (answer === null) return ended(p, { status: 'denied', message: 'the clerk declined to answer' }, failed(`The clerk declined to answer: ${action.question}`));
  if (action.kind === 'confirmation') {
    if (!CONFIRMED.test(answer.trim())) return ended(p, { status: 'denied', message: 'the clerk did not confirm' }, failed(`The clerk did not confirm: ${action.question}`));
    run.tellModel(`The clerk confirmed: ${action.question}`);
  } else if (action.field) {
    run.state.clerkValues[action.field] = answer;
    if (action.kind === 'security_answer') run.addSecret(answer);
    else await saveClerkAnswer(run, action.field, answer);
    run.tellModel(`The clerk supplied case field "${action.field}"; fill it by that name.`);
  }
  const shown = action.kind === 'missing_value' ? answer : maskCode(answer);
  return ran(p, { status: 'done', message: `clerk answered ${shown}` });
}

/** A missing value the clerk gave joins the stored case, so a resumed run has it too. */
async function saveClerkAnswer(run: RunContext, field: string, answer: string): Promise<void> {
  const { recorder, runId } = run.o;
  const stored = await recorder.getRun(runId);
  if (!stored) return;
  const json = JSON.parse(stored.caseJson) as { clerkValues?: Record<string, string> };
  json.clerkValues = { ...json.clerkValues, [field]: answer };
  await recorder.updateRun(runId, { caseJson: JSON.stringify(json) });
}
