import { useState } from 'react';

/**
 * The portal put up a CAPTCHA or "verify you are human" check. The agent does not try to pass it:
 * the clerk solves it in the portal, then hands the case back, which starts the run again.
 */
export function BotChallengeCard({ what, startUrl, onHandBack }: { what: string; startUrl?: string; onHandBack: (() => Promise<void>) | null }) {
  const [takenOver, setTakenOver] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <section className="card card-blocked bot-card" aria-label="Bot check">
      <h2>Take over: the portal wants a human</h2>
      <p>
        The portal showed {what}. The agent stopped here on purpose: automation must not solve bot checks, so this step is yours.
      </p>
      {takenOver ? (
        <ol className="takeover-steps">
          <li>
            Open the portal in your own browser{startUrl ? <> at <code>{startUrl}</code></> : null} and sign in as the client.
          </li>
          <li>Solve the check there (tick the box, pick the pictures, and so on).</li>
          <li>Come back here and press <strong>Hand back</strong>: the agent starts the case again from the beginning; drafts already saved on the portal are picked up.</li>
        </ol>
      ) : null}
      <div className="buttons">
        {!takenOver && (
          <button type="button" className="btn btn-primary" onClick={() => setTakenOver(true)}>
            Take over
          </button>
        )}
        <button
          type="button"
          className="btn btn-secondary"
          disabled={busy || !onHandBack}
          title={onHandBack ? undefined : 'The case file is no longer in the cases folder'}
          onClick={async () => {
            if (!onHandBack) return;
            setBusy(true);
            try {
              await onHandBack();
            } finally {
              setBusy(false);
            }
          }}
        >
          Hand back — restart the run
        </button>
      </div>
    </section>
  );
}
