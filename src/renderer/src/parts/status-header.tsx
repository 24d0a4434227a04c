import type { RunView } from '../../../shared/console-api';
import type { StepRecord } from '../../../shared/run';
import { approvalSubject } from '../approval-text';
import { caseValues } from '../case-values';
import { isBotChallenge, reasonLine, statusLook } from '../status';
import { pageName, timeOf } from './step-entry';

/** The run's state in one glance: a coloured band with a big word, what it waits for, and the application number when done. */
export function StatusHeader({ view, lastStep }: { view: RunView; lastStep: StepRecord | undefined }) {
  const run = view.run;
  const look = statusLook(run.status);
  const values = caseValues(run);
  let headline: string = look.label;
  let detail = reasonLine(view);
  if (run.status === 'running') {
    headline = 'Running';
    detail = lastStep ? `The agent is working · last page read: ${pageName(lastStep)} (step #${lastStep.index})` : 'Opening the portal…';
  } else if (view.pendingApproval || run.status === 'awaiting_approval') {
    headline = 'Waiting for you — approve or deny';
    if (view.pendingApproval) detail = approvalSubject(view.pendingApproval);
  } else if (view.pendingInput || run.status === 'awaiting_input') {
    headline = view.pendingInput?.kind === 'otp' ? 'Waiting for you — one-time code' : 'Waiting for you — an answer';
  } else if (run.status === 'done') {
    headline = 'Done';
    detail = run.applicationNumber ? `Application number ${run.applicationNumber}` : run.reason ?? '';
  } else if (isBotChallenge(view)) {
    headline = 'Blocked — over to you';
  } else {
    headline = look.label.charAt(0).toUpperCase() + look.label.slice(1);
  }
  return (
    <header className={`status-header tone-${look.tone}`} data-status={run.status}>
      <div className="status-main">
        <span className="status-word">{headline}</span>
        <span className="status-detail">{detail}</span>
      </div>
      <div className="status-meta">
        <span>
          <strong>{run.caseId}</strong>
        </span>
        <span>client {run.clientId}</span>
        <span>portal {run.portal}</span>
        <span>planner {values.planner}</span>
        {run.layout && <span>layout {run.layout}</span>}
        <span>started {timeOf(run.startedAt)}</span>
        <span>
          {run.stepCount} step{run.stepCount === 1 ? '' : 's'}
        </span>
        <span className="mono">{run.id}</span>
      </div>
    </header>
  );
}
