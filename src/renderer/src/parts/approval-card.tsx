import { useEffect, useRef, useState } from 'react';
import { describeAction } from '../../../shared/describe-action';
import { cardValues, heldAddress, heldRequestLine, reviewDifferences, type ApprovalRequest, type HeldRequest } from '../../../shared/clerk';
import { showInvisible } from '../../../shared/visible-text';
import type { ApprovalDetail, ReviewRow } from '../../../shared/console-api';
import { approvalSubject } from '../approval-text';
import { Lightbox } from './lightbox';
import { WaitCountdown } from './wait-countdown';

/**
 * A gated action waiting for the clerk: what will happen (the whole page, scrollable, and on a
 * final-review page every value about to be submitted beside the case value it came from), and
 * the guard's reason. A approves, D denies; in the note field, Alt+A and Alt+D.
 */
export function ApprovalCard({
  request,
  detail,
  loadPicture,
  onDecide,
}: {
  request: ApprovalRequest;
  detail: ApprovalDetail | null;
  loadPicture: () => Promise<string | null>;
  onDecide: (decision: 'approve' | 'deny', note?: string) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const [enlarged, setEnlarged] = useState(false);
  const [fullPage, setFullPage] = useState<string | null>(null);
  const viewport = request.screenshotBase64 ? `data:image/png;base64,${request.screenshotBase64}` : null;
  const shot = fullPage ?? viewport;
  const hasFullPage = !!detail?.fullPage;
  // What the final-review page says will be submitted, beside the case: from the step's page read, or from the held request's own.
  const reviewRows = detail?.review ?? request.request?.review ?? [];
  const load = useRef(loadPicture);
  load.current = loadPicture;

  useEffect(() => {
    if (!hasFullPage) return;
    let gone = false;
    void load.current().then((png) => {
      if (!gone && png) setFullPage(`data:image/png;base64,${png}`);
    });
    return () => {
      gone = true;
    };
    // One picture per approval: the card is keyed by it.
  }, [hasFullPage]);

  const card = useRef<HTMLElement>(null);
  const decide = async (decision: 'approve' | 'deny') => {
    // A tab without the console service (its buttons are off) decides nothing, keys included.
    if (busy || card.current?.closest('fieldset')?.disabled) return;
    setBusy(true);
    try {
      await onDecide(decision, note.trim() || undefined);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.repeat || e.ctrlKey || e.metaKey) return;
      // In the note field letters are the note's; Alt+A / Alt+D decide from there (e.code: Alt changes e.key on some layouts).
      const key = e.altKey ? (e.code === 'KeyA' ? 'a' : e.code === 'KeyD' ? 'd' : '') : isTyping(e.target) ? '' : e.key.toLowerCase();
      if (key === 'a' || key === 'd') {
        e.preventDefault();
        void decide(key === 'a' ? 'approve' : 'deny');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <section ref={card} className="card card-waiting approval-card" aria-label="Approval needed">
      <h2>{request.request ? 'Approve sending this request?' : 'Approve this action?'}</h2>
      {request.expiresAt && (
        <p className="approval-countdown">
          <WaitCountdown expiresAt={request.expiresAt} />
        </p>
      )}
      <div className="approval-grid">
        <div>
          {request.request ? (
            <>
              {request.action && (
                <p className="approval-action">
                  The agent wants to <strong>{showInvisible(describeAction(request.action, request.element))}</strong> (step {request.step}); this is the request it sends, held until you answer.
                </p>
              )}
              <p className="approval-element approval-address">{heldAddress(request.request)}</p>
              <p className="approval-action">
                Sent by <strong>{showInvisible(request.request.cause)}</strong> (step {request.step}). Nothing has been sent yet.
                {request.request.bodySha256 && <span className="approval-body-hash"> Body sha256 {request.request.bodySha256}: your answer is for this body only.</span>}
              </p>
              <CarriedValues request={request.request} />
              <ReviewDifferences request={request.request} />
            </>
          ) : (
            <>
              <p className="approval-element">{request.element ?? approvalSubject(request)}</p>
              <p className="approval-action">
                The agent wants to <strong>{approvalSubject(request)}</strong> (step {request.step}).
              </p>
              {request.sends && (
                <>
                  <p className="approval-sends">
                    It sends <code>{heldRequestLine(request.sends)}</code>; if the page changes what it sends after you approve, you are asked again.
                  </p>
                  <CarriedValues request={request.sends} />
                </>
              )}
            </>
          )}
          {request.reasoning && (
            <p className="approval-reasoning">
              <span className="label">
                {request.reasoningFrom === 'route' ? 'The learned route’s step (recorded from earlier runs of this portal, not the model)' : 'The model’s reasoning (read from the page: data, not an instruction)'}
              </span>{' '}
              {request.reasoning.slice(0, 600)}
            </p>
          )}
          <p className="approval-reason">
            <span className="label">Why it asks</span> {request.verdict.reason}
            <span className="rule"> · guard rule “{request.verdict.rule}”</span>
          </p>
          {reviewRows.length > 0 && <ReviewTable rows={reviewRows} />}
          <label className="note">
            Note for the record (optional) <span className="hint-inline">— Alt+A approves, Alt+D denies from here</span>
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
          <p className="hint">Denying stops the run here; nothing is sent.</p>
        </div>
        {shot && (
          <figure className="approval-shot">
            <div className="approval-shot-scroll" tabIndex={0} aria-label={fullPage ? 'The whole page, scroll to see it all' : 'The page now'}>
              <img src={shot} alt={fullPage ? 'The whole portal page when approval was asked' : 'The portal page when approval was asked'} />
            </div>
            <figcaption>
              {fullPage ? 'The whole page — scroll to see it all' : hasFullPage ? 'The page now (the whole page is loading)' : 'The page now'} ·{' '}
              <button type="button" className="link-button" onClick={() => setEnlarged(true)}>
                enlarge
              </button>
            </figcaption>
          </figure>
        )}
      </div>
      {enlarged && shot && <Lightbox src={shot} alt="The portal page when approval was asked" onClose={() => setEnlarged(false)} />}
    </section>
  );
}

/** On a final-review page: what the page says it will submit, beside the case value it came from; a mismatch stands out. */
function ReviewTable({ rows }: { rows: readonly ReviewRow[] }) {
  const differs = rows.filter((r) => r.match === 'differs').length;
  const strangers = rows.filter((r) => r.match === 'not_in_case').length;
  return (
    <div className="review-values" aria-label="Values about to be submitted">
      <p className="label">
        About to be submitted: {rows.length} value{rows.length === 1 ? '' : 's'}
        {differs > 0 ? <strong className="review-alert"> — {differs} differ from the case</strong> : rows.length > 0 && strangers === 0 ? ' — all match the case' : ''}
        {strangers > 0 ? ` — ${strangers} not from the case` : ''}
      </p>
      <div className="review-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">On the page</th>
              <th scope="col">Value</th>
              <th scope="col">Case value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className={`review-${r.match}`} data-match={r.match}>
                <th scope="row">{r.label}</th>
                <td>{r.pageValue}</td>
                <td>
                  {r.match === 'not_in_case' ? (
                    'not in the case'
                  ) : (
                    <>
                      {r.match === 'differs' && <span className="mismatch">differs: </span>}
                      {r.caseValue} <code>{r.field}</code>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** Every value a held request (or the approved control) carries, with where it came from; values not from the case stand out. */
function CarriedValues({ request }: { request: Pick<HeldRequest, 'values'> }) {
  if (request.values.length === 0) return <p className="approval-values-none">It carries no form values.</p>;
  const rows = cardValues(request);
  const strangers = rows.filter((v) => v.notFromCase).length;
  const marked = rows.filter((v) => v.invisible > 0).length;
  return (
    <div className="approval-values">
      <p className="label">
        What it sends, every value whole{strangers > 0 ? ` — ${strangers} value${strangers === 1 ? '' : 's'} not from the case` : ''}
        {marked > 0 ? ` — ${marked} with hidden or direction-changing characters (shown as ⟦…⟧)` : ''}
      </p>
      <div className="approval-values-scroll" tabIndex={0} aria-label="Values the request carries, scroll to see them all">
        <table>
          <tbody>
            {rows.map((v, i) => (
              <tr key={i} className={v.notFromCase || v.invisible > 0 ? 'value-stranger' : undefined}>
                <th scope="row">{v.name}</th>
                <td className="approval-value">{v.value}</td>
                <td>{v.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** A submission's review page beside the case: the rows that differ, named before the clerk approves. */
function ReviewDifferences({ request }: { request: Pick<HeldRequest, 'review'> }) {
  const differences = reviewDifferences(request);
  // Every row is in the table below (ReviewTable); the differences are said first, in words.
  if (differences.length === 0) return null;
  return (
    <div className="review-differences-box" aria-label="Where the review page differs from the case">
      <p className="label">
        <strong className="review-alert">The review page differs from the case in {differences.length} value{differences.length === 1 ? '' : 's'}</strong> — the portal would file these:
      </p>
      <ul className="review-differences">
        {differences.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
    </div>
  );
}

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
