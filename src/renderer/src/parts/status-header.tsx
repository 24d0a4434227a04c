import type { RunView } from '../../../shared/console-api';
import type { StepRecord } from '../../../shared/run';
import { approvalSubject } from '../approval-text';
import { caseValues } from '../case-values';
import { caseName, isBotChallenge, isDenied, phaseLabel, reasonLine, START_PHASES, statusLook, type Tone } from '../status';
import { pageName, timeOf } from './step-entry';

/** The run's state in one glance: a coloured band with a big word, what it waits for, and the application number when done. */
export function StatusHeader({ view, lastStep }: { view: RunView; lastStep: StepRecord | undefined }) {
  const run = view.run;
  const look = statusLook(run.status);
  let tone: Tone = look.tone;
  const values = caseValues(run);
  let headline: string = look.label;
  let detail = reasonLine(view);
  const takeOver = view.pendingTakeOver;
  if (takeOver?.state === 'active') {
    headline = 'You have the portal';
    tone = 'waiting';
    detail = 'Work the portal in the live view, then hand it back: the agent waits';
  } else if (takeOver?.state === 'offered') {
    headline = 'Waiting for you — take over';
    tone = 'waiting';
  } else if (view.pendingApproval || run.status === 'awaiting_approval') {
    headline = 'Waiting for you — approve or deny';
    if (view.pendingApproval) detail = approvalSubject(view.pendingApproval);
  } else if (view.pendingInput || run.status === 'awaiting_input') {
    headline = view.pendingInput?.kind === 'otp' ? 'Waiting for you — one-time code' : 'Waiting for you — an answer';
  } else if (run.status === 'running' || run.status === 'queued') {
    headline = run.status === 'queued' ? (view.phase ? 'Starting' : 'Queued') : 'Running';
    if (view.phase === 'waiting_portal') {
      headline = 'The portal is not answering';
      tone = 'waiting';
      detail = run.reason ?? 'Waiting for the portal, then trying again';
    } else if (takeOver?.state === 'asked') detail = 'Handing the portal to you after the current action';
    else if (lastStep) detail = `The agent is working · ${phaseLabel(view.phase) || 'working'} · last page read: ${pageName(lastStep)} (step #${lastStep.index})`;
    else detail = phaseLabel(view.phase) || 'Starting…';
  } else if (run.status === 'done') {
    headline = 'Done';
    detail = run.applicationNumber ? `Application number ${run.applicationNumber}` : (run.reason ?? '');
  } else if (isDenied(view)) {
    headline = 'Denied — nothing was sent';
    tone = 'idle';
  } else if (isBotChallenge(view)) {
    headline = 'Blocked — bot check not taken over';
  } else if (run.status === 'interrupted' && view.phase) {
    headline = 'Resuming';
    tone = 'running';
    detail = phaseLabel(view.phase);
  } else if (run.status === 'interrupted') {
    headline = 'Interrupted — resumable';
  } else {
    headline = look.label.charAt(0).toUpperCase() + look.label.slice(1);
  }
  const starting = ((run.status === 'running' || run.status === 'queued') && !lastStep && view.phase !== 'waiting_portal') || (run.status === 'interrupted' && !!view.phase);
  return (
    <header className={`status-header tone-${tone}`} data-status={run.status} data-phase={view.phase ?? undefined}>
      <div className="status-main">
        <span className="status-word">{headline}</span>
        <span className="status-detail">{detail}</span>
      </div>
      {starting && <Phases phase={view.phase} />}
      <div className="status-meta">
        <span>
          <strong>{caseName(view)}</strong>
        </span>
        <span>{run.caseId}</span>
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

/** The first seconds of a run, phase by phase: done ones ticked, the current one marked. */
function Phases({ phase }: { phase: RunView['phase'] }) {
  const at = phase ? START_PHASES.indexOf(phase) : 0;
  return (
    <ol className="phases" aria-label="Starting the run">
      {START_PHASES.map((p, i) => (
        <li key={p} className={i < at ? 'phase-done' : i === at ? 'phase-now' : 'phase-next'} aria-current={i === at ? 'step' : undefined}>
          {phaseLabel(p)}
        </li>
      ))}
    </ol>
  );
}
