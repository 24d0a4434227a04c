import { useEffect, useState } from 'react';

/** How long before a wait runs out the countdown turns into a notice (the engine's own notice comes as early or earlier). */
const NOTICE_MS = 5 * 60_000;

function clock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h > 0 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * The time left to answer a card before its wait runs out (then the run stops, resumable, and
 * nothing is sent), counting down each second; in the last minutes, a notice.
 */
export function WaitCountdown({ expiresAt, compact = false }: { expiresAt: string; compact?: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Date.parse(expiresAt) - now;
  if (Number.isNaN(left)) return null;
  const tone = left <= 0 ? 'wait-expired' : left <= NOTICE_MS ? 'wait-notice' : 'wait-ok';
  const text =
    left <= 0
      ? 'Time to answer ran out: the run stops, resumable; nothing was sent'
      : compact
        ? `${clock(left)} left to answer`
        : left <= NOTICE_MS
          ? `Only ${clock(left)} left to answer: then the run stops (resumable) and nothing is sent`
          : `${clock(left)} left to answer — the run’s time limit is not counting while it waits for you`;
  return (
    <span className={`wait-countdown ${tone}`} role={tone === 'wait-ok' ? undefined : 'status'} data-left-s={Math.max(0, Math.ceil(left / 1000))}>
      {text}
    </span>
  );
}
