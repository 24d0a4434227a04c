import { useEffect, useRef, useState, type FormEvent } from 'react';
import { SECRET_INPUT_KINDS, type InputRequest } from '../../../shared/clerk';

const TITLES: Record<InputRequest['kind'], string> = {
  otp: 'Type the one-time code',
  security_answer: 'Answer the security question',
  missing_value: 'A value is missing from the case',
  confirmation: 'Please confirm',
};

/** A question for the clerk. Codes and security answers are masked; Enter submits. */
export function InputCard({ request, onAnswer, onResend }: { request: InputRequest; onAnswer: (value: string | null) => Promise<void>; onResend?: () => Promise<void> }) {
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const secret = SECRET_INPUT_KINDS.includes(request.kind);

  useEffect(() => input.current?.focus(), [request.step, request.kind]);

  const send = async (answer: string | null) => {
    if (busy) return;
    setBusy(true);
    try {
      await onAnswer(answer);
      setValue('');
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) void send(value.trim());
  };

  return (
    <section className="card card-waiting input-card" aria-label={TITLES[request.kind]}>
      <h2>{request.problem && request.kind === 'otp' ? 'The portal did not take that code — type it again' : TITLES[request.kind]}</h2>
      {request.problem && (
        <p className="input-problem" role="alert">
          The portal said: <strong>{request.problem}</strong>
        </p>
      )}
      <p className="question">{request.question}</p>
      {request.expiresAt && <CodeLifetime expiresAt={request.expiresAt} />}
      {request.field && (
        <p className="hint">
          Fills case field <code>{request.field}</code>
        </p>
      )}
      <form onSubmit={submit} className="answer-row">
        <input
          ref={input}
          type={secret ? 'password' : 'text'}
          inputMode={request.kind === 'otp' ? 'numeric' : undefined}
          autoComplete={request.kind === 'otp' ? 'one-time-code' : 'off'}
          aria-label={TITLES[request.kind]}
          value={value}
          maxLength={500}
          placeholder={request.kind === 'otp' ? '6-digit code' : request.kind === 'confirmation' ? 'type yes to confirm' : ''}
          onChange={(e) => setValue(e.target.value)}
          disabled={busy}
        />
        <button type="submit" className="btn btn-primary" disabled={busy || !value.trim()}>
          Send <kbd>Enter</kbd>
        </button>
        {request.canResend && onResend && (
          <button
            type="button"
            className="btn btn-secondary"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              void onResend().finally(() => setBusy(false));
            }}
          >
            Send a new code
          </button>
        )}
        <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => void send(null)}>
          I can’t answer
        </button>
      </form>
      {secret && <p className="hint">Masked here and never written to the log or the store.</p>}
    </section>
  );
}

/** How long the code the portal sent still works, counting down. */
function CodeLifetime({ expiresAt }: { expiresAt: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.round((new Date(expiresAt).getTime() - now) / 1000);
  if (!Number.isFinite(left)) return null;
  if (left <= 0) return <p className="code-lifetime code-expired">The code has expired: ask the portal for a new one.</p>;
  return (
    <p className="code-lifetime">
      The code works for another <strong>{Math.floor(left / 60)}:{String(left % 60).padStart(2, '0')}</strong> min
    </p>
  );
}
