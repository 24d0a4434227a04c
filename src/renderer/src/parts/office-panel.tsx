import { useState } from 'react';
import type { OfficeView, OfficeWaitView } from '../../../shared/console-api';
import { useModel } from '../console-context';
import { messageOf } from '../console-model';
import { href } from '../route';
import { CountSelect } from './count-select';
import { timeOf } from './step-entry';

/**
 * The office (PORTAL_DESK_DATABASE_URL): join or leave the office queue, and the human waits of
 * every desk's runs, answered here (the first clerk to answer wins).
 */
export function OfficePanel({ office }: { office: OfficeView }) {
  const model = useModel();
  const [slots, setSlots] = useState(1);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const join = async (joining: boolean) => {
    setBusy(true);
    setProblem(null);
    try {
      model.showOffice(await model.api.joinOffice({ join: joining, slots }));
    } catch (err) {
      setProblem(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel office-panel" aria-label="Office queue">
      <h2>
        Office queue
        <span className="queue-progress">
          {office.queued} waiting in the queue · {office.active} running at desks
        </span>
      </h2>
      <div className="office-join">
        {office.joined ? (
          <>
            <span className="chip chip-running">this console takes cases</span>
            <span className="sub">
              desk {office.deskId} · {office.slots} at a time
            </span>
            <button type="button" className="btn btn-secondary btn-small" disabled={busy} onClick={() => void join(false)}>
              Leave the office queue
            </button>
          </>
        ) : (
          <>
            <span className="sub">This console does not take cases from the office queue.</span>
            <CountSelect label="At a time" ariaLabel="Office cases at a time" value={slots} onChange={setSlots} />
            <button type="button" className="btn btn-primary btn-small" disabled={busy} onClick={() => void join(true)}>
              Join the office queue
            </button>
          </>
        )}
      </div>
      {(problem ?? office.problem) && <p className="problem">{problem ?? office.problem}</p>}
      <h3 className="office-waits-title">
        Office waits <span className="count">{office.waits.length}</span>
      </h3>
      {office.waits.length === 0 ? (
        <p className="empty">Nothing in the office waits for a clerk.</p>
      ) : (
        <ul className="office-waits">
          {office.waits.map((w) => (
            <OfficeWaitCard key={w.id} wait={w} />
          ))}
        </ul>
      )}
    </section>
  );
}

const KIND_LABEL: Record<OfficeWaitView['kind'], string> = {
  approval: 'approval',
  take_over: 'take over',
  otp: 'one-time code',
  security_answer: 'security answer',
  missing_value: 'missing value',
  confirmation: 'confirmation',
};

/** One office wait with its answer: approve or deny, or the value typed (a secret masked). */
export function OfficeWaitCard({ wait }: { wait: OfficeWaitView }) {
  const model = useModel();
  const [value, setValue] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const answer = async (params: { decision?: 'approve' | 'deny'; value?: string | null }) => {
    setBusy(true);
    setSaid(null);
    try {
      const { accepted } = await model.api.answerOfficeWait({ id: wait.id, ...params, ...(note ? { note } : {}) });
      setSaid(accepted ? 'Answered: the run at its desk goes on.' : 'Another clerk answered first; nothing changed.');
      setValue('');
    } catch (err) {
      setSaid(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="office-wait" data-wait={wait.id} data-kind={wait.kind}>
      <div className="office-wait-head">
        <span className="chip chip-waiting small">{KIND_LABEL[wait.kind]}</span>
        <strong className="office-wait-question">{wait.question}</strong>
      </div>
      <div className="sub">
        {wait.caseId ?? 'case'}
        {wait.clientId ? ` · client ${wait.clientId}` : ''} · <a href={href({ name: 'run', runId: wait.runId })}>run {wait.runId}</a> · step {wait.step} · desk {wait.deskName}
        {wait.thisDesk ? ' (this console)' : ''} · since {timeOf(wait.createdAt)}
      </div>
      {wait.reason && <div className="sub">Why the guard asks: {wait.reason}</div>}
      {wait.kind === 'approval' ? (
        <div className="office-answer">
          <input value={note} onChange={(e) => setNote(e.target.value)} placeholder="Note (optional)" aria-label={`Note for office wait ${wait.id}`} maxLength={500} />
          <button type="button" className="btn btn-approve btn-small" disabled={busy} onClick={() => void answer({ decision: 'approve' })}>
            Approve
          </button>
          <button type="button" className="btn btn-deny btn-small" disabled={busy} onClick={() => void answer({ decision: 'deny' })}>
            Deny
          </button>
        </div>
      ) : wait.kind === 'take_over' ? (
        <p className="sub">The portal is in the browser at desk {wait.deskName}: a clerk there takes it over.</p>
      ) : (
        <form
          className="office-answer"
          onSubmit={(e) => {
            e.preventDefault();
            if (value) void answer({ value });
          }}
        >
          <input
            type={wait.secret ? 'password' : 'text'}
            autoComplete="off"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-label={`Answer office wait ${wait.id}`}
            maxLength={500}
          />
          <button type="submit" className="btn btn-primary btn-small" disabled={busy || !value}>
            Send
          </button>
          <button type="button" className="btn btn-quiet btn-small" disabled={busy} onClick={() => void answer({ value: null })}>
            Decline
          </button>
        </form>
      )}
      {said && <p className="sub office-said">{said}</p>}
    </li>
  );
}
