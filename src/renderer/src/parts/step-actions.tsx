import type { StepAction } from '../../../shared/run';
import { describeAction } from '../../../shared/describe-action';
import type { CaseValues } from '../case-values';
import { OutcomeTag, VerdictChip } from './chips';

/** The actions of one step: what, on which element, the guard's verdict, the case field behind a value, what happened. */
export function StepActions({ actions, values }: { actions: readonly StepAction[]; values: CaseValues | null }) {
  if (actions.length === 0) return null;
  return (
    <ul className="actions">
      {actions.map((a, i) => {
        const denied = a.approval?.decision === 'deny';
        // A planner's give-up ends the run: it is not an allowed action done (green), it is the run stopping.
        const gaveUp = a.action.type === 'fail';
        return (
        <li key={i} className={`action action-${gaveUp ? 'ended' : a.outcome.status}`}>
          {gaveUp ? <span className="chip small verdict-ended">run ended</span> : <VerdictChip verdict={a.verdict.verdict} rule={a.verdict.rule} />}
          <div className="action-body">
            <span className="action-text">{describeAction(a.action, a.element)}</span>
            <Provenance action={a} values={values} />
            {a.verdict.verdict !== 'allow' && <span className="guard-reason">{a.verdict.reason}</span>}
            {a.approval && (
              <span className={`approval approval-${a.approval.decision}`}>
                {a.approval.decision === 'approve' ? 'approved' : 'denied'} by {a.approval.by}
                {denied ? ' — not done, nothing sent' : ''}
                {a.approval.note ? ` — “${a.approval.note}”` : ''}
              </span>
            )}
            {/* A denial is said once, by the approval line above. */}
            {!denied && !gaveUp && <OutcomeTag status={a.outcome.status} />}
            {!denied && a.outcome.message && (a.outcome.status !== 'done' || a.action.type === 'done') && <span className="outcome-message">{a.outcome.message}</span>}
          </div>
        </li>
        );
      })}
    </ul>
  );
}

function Provenance({ action, values }: { action: StepAction; values: CaseValues | null }) {
  const p = action.verdict.provenance;
  const field = p?.field ?? ('field' in action.action && typeof action.action.field === 'string' ? action.action.field : undefined);
  if (!field) return null;
  const source = p?.source ?? 'case';
  if (source === 'otp') return <span className="provenance">← one-time code typed by the clerk (not shown)</span>;
  if (p?.document) {
    return (
      <span className="provenance">
        ← case document <code>{field}</code>
        <span className="value"> {p.document.file}, {p.document.bytes} bytes, sha256 <code>{p.document.sha256.slice(0, 16)}…</code></span>
      </span>
    );
  }
  const value = source === 'clerk' ? values?.clerk[field] : values?.fields[field];
  return (
    <span className="provenance">
      ← {source === 'clerk' ? 'clerk answer' : 'case field'} <code>{field}</code>
      {value !== undefined && <span className="value"> “{String(value)}”</span>}
      {p?.format && <span className="value"> written as {p.format}</span>}
    </span>
  );
}
