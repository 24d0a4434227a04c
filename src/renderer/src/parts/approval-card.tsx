import { useEffect, useState } from 'react';
import { heldRequestLine, type ApprovalRequest, type HeldRequest } from '../../../shared/clerk';
import { approvalSubject } from '../approval-text';
import { Lightbox } from './lightbox';

/**
 * A gated action waiting for the clerk: the element, the page as it was, and the guard's reason.
 * A approves, D denies (not while typing in a field).
 */
export function ApprovalCard({ request, onDecide }: { request: ApprovalRequest; onDecide: (decision: 'approve' | 'deny', note?: string) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const [enlarged, setEnlarged] = useState(false);
  const shot = request.screenshotBase64 ? `data:image/png;base64,${request.screenshotBase64}` : null;

  const decide = async (decision: 'approve' | 'deny') => {
    if (busy) return;
    setBusy(true);
    try {
      await onDecide(decision, note.trim() || undefined);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.repeat || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      const key = e.key.toLowerCase();
      if (key === 'a' || key === 'd') {
        e.preventDefault();
        void decide(key === 'a' ? 'approve' : 'deny');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <section className="card card-waiting approval-card" aria-label="Approval needed">
      <h2>{request.request ? 'Approve sending this request?' : 'Approve this action?'}</h2>
      <div className="approval-grid">
        <div>
          {request.request ? (
            <>
              <p className="approval-element">{heldRequestLine(request.request)}</p>
              <p className="approval-action">
                Sent by <strong>{request.request.cause}</strong> (step {request.step}). Nothing has been sent yet.
              </p>
              <CarriedValues request={request.request} />
            </>
          ) : (
            <>
              <p className="approval-element">{request.element ?? approvalSubject(request)}</p>
              <p className="approval-action">
                The agent wants to <strong>{approvalSubject(request)}</strong> (step {request.step}).
              </p>
            </>
          )}
          {request.reasoning && (
            <p className="approval-reasoning">
              <span className="label">The model’s reasoning (read from the page: data, not an instruction)</span> {request.reasoning.slice(0, 600)}
            </p>
          )}
          <p className="approval-reason">
            <span className="label">Why it asks</span> {request.verdict.reason}
            <span className="rule"> · guard rule “{request.verdict.rule}”</span>
          </p>
          <label className="note">
            Note for the record (optional)
            <input value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} placeholder="e.g. checked with the client by phone" />
          </label>
          <div className="buttons">
            <button type="button" className="btn btn-approve" disabled={busy} onClick={() => void decide('approve')}>
              Approve <kbd>A</kbd>
            </button>
            <button type="button" className="btn btn-deny" disabled={busy} onClick={() => void decide('deny')}>
              Deny <kbd>D</kbd>
            </button>
          </div>
          <p className="hint">Denying ends the run; nothing is submitted.</p>
        </div>
        {shot && (
          <button type="button" className="approval-shot" onClick={() => setEnlarged(true)} title="Enlarge the page as it was">
            <img src={shot} alt="The portal page when approval was asked" />
            <span>the page now — click to enlarge</span>
          </button>
        )}
      </div>
      {enlarged && shot && <Lightbox src={shot} alt="The portal page when approval was asked" onClose={() => setEnlarged(false)} />}
    </section>
  );
}

/** Every value the held request carries, with where it came from; values not from the case stand out. */
function CarriedValues({ request }: { request: HeldRequest }) {
  if (request.values.length === 0) return <p className="approval-values-none">It carries no form values.</p>;
  const strangers = request.values.filter((v) => v.origin === 'not_from_case').length;
  return (
    <div className="approval-values">
      <p className="label">
        What it sends{strangers > 0 ? ` — ${strangers} value${strangers === 1 ? '' : 's'} not from the case` : ''}
      </p>
      <table>
        <tbody>
          {request.values.map((v, i) => (
            <tr key={i} className={v.origin === 'not_from_case' ? 'value-stranger' : undefined}>
              <th scope="row">{v.name}</th>
              <td>{v.value}</td>
              <td>{v.origin === 'case' ? `case: ${v.field ?? ''}` : v.origin === 'clerk' ? `your answer${v.field ? `: ${v.field}` : ''}` : 'not from the case'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
