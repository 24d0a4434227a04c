import type { StepRecord } from '../../../shared/run';
import type { CaseValues } from '../case-values';
import { StepScreenshot } from './screenshot';
import { StepActions } from './step-actions';

/** Where the page was: the form's own step label, else its first heading, else its title. */
export function pageName(step: StepRecord): string {
  const o = step.observation;
  return o.flowStep ?? o.headings[0] ?? o.title ?? o.url;
}

/** One step in the live log: screenshot thumbnail, the page, what code noted, the actions. */
export function StepEntry({ step, values }: { step: StepRecord; values: CaseValues | null }) {
  return (
    <li className="step" data-step={step.index}>
      <StepScreenshot hash={step.screenshotHash} alt={`Step ${step.index} screenshot`} size="thumb" />
      <div className="step-body">
        <div className="step-head">
          <span className="step-no">#{step.index}</span>
          {step.source === 'route' && (
            <span className="chip small step-source" title="This turn came from the learned route (no planner call); the guard and the clerk judged it like any other">
              route
            </span>
          )}
          <span className="step-page">{pageName(step)}</span>
          <span className="step-time">{timeOf(step.endedAt)}</span>
        </div>
        {step.observation.errors.length > 0 && (
          <ul className="page-errors">
            {step.observation.errors.map((e, i) => (
              <li key={i}>Page error{e.field ? ` (${e.field})` : ''}: {e.message}</li>
            ))}
          </ul>
        )}
        {step.events.length > 0 && (
          <ul className="events">
            {step.events.map((e, i) => (
              <li key={i}>
                <span className="event-type">{e.type.replace(/_/g, ' ')}</span> {e.message}
              </li>
            ))}
          </ul>
        )}
        <StepActions actions={step.actions} values={values} />
        {step.actions.length === 0 && step.events.length === 0 && <p className="muted">{step.reasoning}</p>}
      </div>
    </li>
  );
}

export function timeOf(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}
