import type { QueueEntry, QueueView } from '../../../shared/console-api';
import { href } from '../route';
import { phaseLabel, type Tone } from '../status';
import { WaitCountdown } from './wait-countdown';

const STATES: Record<QueueEntry['state'], { label: string; tone: Tone }> = {
  waiting: { label: 'waiting', tone: 'idle' },
  running: { label: 'running', tone: 'running' },
  waiting_clerk: { label: 'waiting for you', tone: 'waiting' },
  done: { label: 'done', tone: 'done' },
  not_done: { label: 'not done', tone: 'failed' },
};

const ORDER: QueueEntry['state'][] = ['waiting_clerk', 'running', 'waiting', 'done', 'not_done'];

/** A day's queue at a glance: how many cases are where, then one line a case with its state and what it does or waits for. */
export function QueuePanel({ queue }: { queue: QueueView }) {
  const counts = new Map<QueueEntry['state'], number>();
  for (const e of queue.entries) counts.set(e.state, (counts.get(e.state) ?? 0) + 1);
  const finished = (counts.get('done') ?? 0) + (counts.get('not_done') ?? 0);
  return (
    <section className={`panel queue-panel${queue.endedAt ? ' queue-ended' : ''}`} aria-label={`Queue ${queue.label}`} data-queue={queue.id}>
      <h2>
        Queue — {queue.label}
        <span className="queue-progress">
          {finished} of {queue.entries.length} finished · at most {queue.concurrency} working at once (runs waiting for you hold no place) · one run per client and portal
        </span>
      </h2>
      <div className="queue-counts" aria-label="Cases by state">
        {ORDER.filter((s) => counts.get(s)).map((s) => (
          <span key={s} className={`chip chip-${STATES[s].tone}`}>
            {counts.get(s)} {STATES[s].label}
          </span>
        ))}
      </div>
      <table className="queue-table">
        <tbody>
          {queue.entries.map((e) => (
            <tr key={e.file} data-entry={e.caseId} data-state={e.state} className={e.state === 'waiting_clerk' ? 'row-waiting' : undefined}>
              <td className="queue-state">
                <span className={`chip chip-${STATES[e.state].tone}`}>{STATES[e.state].label}</span>
              </td>
              <td className="queue-case">
                <strong>{e.displayName ?? e.caseId}</strong>
                <div className="sub">
                  {e.caseId}
                  {e.portal ? ` · ${e.portal}` : ''}
                </div>
              </td>
              <td className="reason" title={e.reason}>
                {e.state === 'running' ? `${phaseLabel(e.phase ?? null) || 'Working'} · ${e.reason}` : e.reason}
                {e.state === 'waiting_clerk' && e.waitExpiresAt && (
                  <div>
                    <WaitCountdown expiresAt={e.waitExpiresAt} compact />
                  </div>
                )}
              </td>
              <td className="row-links">{e.runId && <a href={href({ name: 'run', runId: e.runId })}>{e.state === 'waiting_clerk' ? 'Answer →' : 'Open'}</a>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
