import { useState } from 'react';
import type { TakeOverView } from '../../../shared/console-api';

/**
 * A take-over of the run's portal. Offered: the portal put up a CAPTCHA or "verify you are
 * human" check, which the agent never tries to pass; the clerk takes the portal here, in the
 * live view (the run's own guarded session), or declines and the run ends blocked. Active: the
 * clerk works the portal; Hand back lets the same run go on from a fresh read of the page.
 */
export function TakeOverCard({ takeOver, onTake, onEnd }: { takeOver: TakeOverView; onTake: () => Promise<void>; onEnd: (decision: 'hand_back' | 'decline', note?: string) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const run = (what: () => Promise<void>) => async () => {
    if (busy) return;
    setBusy(true);
    try {
      await what();
    } finally {
      setBusy(false);
    }
  };
  const bot = takeOver.reason === 'bot_check';

  if (takeOver.state === 'asked') {
    return (
      <section className="card card-waiting takeover-card" aria-label="Take over">
        <h2>Handing the portal to you…</h2>
        <p>The agent finishes the action it is doing, then stops and gives you the portal. Nothing new starts meanwhile.</p>
        <div className="buttons">
          <button type="button" className="btn btn-quiet" disabled={busy} onClick={run(() => onEnd('decline'))}>
            Cancel
          </button>
        </div>
      </section>
    );
  }

  if (takeOver.state === 'offered') {
    return (
      <section className="card card-waiting takeover-card" aria-label="Bot check">
        <h2>Take over: the portal wants a human</h2>
        <p>
          The portal shows <strong>{takeOver.detail}</strong>. The agent stopped here on purpose: automation never solves bot checks. The run is paused, not ended.
        </p>
        <ol className="takeover-steps">
          <li>
            Press <strong>Take over</strong>: the live portal below becomes yours (click, type and scroll in it). You are in the run’s own session, signed in as the agent left it.
          </li>
          <li>Solve the check (tick the box, pick the pictures) and go on to the next page.</li>
          <li>
            Press <strong>Hand back</strong>: the same run goes on from where you left the page.
          </li>
        </ol>
        <div className="buttons">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={run(onTake)}>
            Take over
          </button>
          <button type="button" className="btn btn-quiet" disabled={busy} onClick={run(() => onEnd('decline'))}>
            Decline — stop the run (blocked)
          </button>
        </div>
      </section>
    );
  }

  return (
    <section className="card card-takeover takeover-card" aria-label="You have the portal">
      <h2>You have the portal</h2>
      <p>
        {bot ? <>Solve the check ({takeOver.detail}) in the live portal, then hand it back. </> : null}
        Mouse, keyboard and scroll in the live portal go to the page. The agent waits and does nothing meanwhile.
      </p>
      <p className="hint">
        The run’s guard still holds: only the portal’s own addresses are reached, downloads stay off, forbidden pages stay refused. What you submit yourself is yours: it is sent without a
        second approval and recorded as yours.
      </p>
      <label className="note">
        Note for the record (optional)
        <input value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} placeholder="e.g. solved the CAPTCHA" />
      </label>
      <div className="buttons">
        <button type="button" className="btn btn-approve" disabled={busy} onClick={run(() => onEnd('hand_back', note.trim() || undefined))}>
          Hand back — the agent goes on
        </button>
        {bot && (
          <button type="button" className="btn btn-quiet" disabled={busy} onClick={run(() => onEnd('decline', note.trim() || undefined))}>
            Give up — stop the run (blocked)
          </button>
        )}
      </div>
    </section>
  );
}
