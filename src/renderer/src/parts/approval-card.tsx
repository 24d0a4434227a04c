import { useEffect, useState } from 'react';
import type { ApprovalRequest } from '../../../shared/clerk';
import { describeAction } from '../action-text';
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
      <h2>Approve this action?</h2>
      <div className="approval-grid">
        <div>
          <p className="approval-element">{request.element ?? describeAction(request.action, undefined)}</p>
          <p className="approval-action">
            The agent wants to <strong>{describeAction(request.action, request.element)}</strong> (step {request.step}).
          </p>
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

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
