import type { OutcomeStatus } from '../../../shared/outcome';
import type { RunStatus } from '../../../shared/run';
import type { VerdictKind } from '../../../shared/verdict';
import { statusLook } from '../status';

export function StatusChip({ status }: { status: RunStatus }) {
  const look = statusLook(status);
  return <span className={`chip chip-${look.tone}`}>{look.label}</span>;
}

const VERDICT_LABEL: Record<VerdictKind, string> = { allow: 'allowed', needs_approval: 'needs approval', block: 'blocked' };

/** The guard's verdict on one action. */
export function VerdictChip({ verdict, rule }: { verdict: VerdictKind; rule?: string }) {
  return (
    <span className={`chip small verdict-${verdict}`} title={rule ? `guard rule: ${rule}` : undefined}>
      {VERDICT_LABEL[verdict]}
    </span>
  );
}

const OUTCOME_LABEL: Record<OutcomeStatus, string> = {
  done: 'done',
  unknown_ref: 'element gone',
  needs_approval: 'waiting',
  denied: 'denied',
  blocked: 'not done',
  error: 'error',
  skipped: 'skipped',
};

export function OutcomeTag({ status }: { status: OutcomeStatus }) {
  return <span className={`outcome outcome-${status}`}>{OUTCOME_LABEL[status]}</span>;
}
