import { useEffect, useRef } from 'react';
import { describeAction } from '../../../shared/describe-action';
import type { StepRecord } from '../../../shared/run';
import { useModel } from '../console-context';
import { useScreenshot } from '../screenshots';
import { pageName } from './step-entry';

/** What the guard and the clerk made of a step's actions, worst first: the filmstrip's colour mark. */
type StepVerdict = 'denied' | 'blocked' | 'approval' | 'allowed' | 'code';

const VERDICT_WORDS: Record<StepVerdict, string> = {
  denied: 'denied by the clerk',
  blocked: 'blocked',
  approval: 'needed approval',
  allowed: 'allowed',
  code: 'code handled it',
};

function stepVerdict(step: StepRecord): StepVerdict {
  if (step.actions.some((a) => a.outcome.status === 'denied' || a.approval?.decision === 'deny')) return 'denied';
  if (step.actions.some((a) => a.verdict.verdict === 'block' || a.outcome.status === 'blocked' || a.outcome.status === 'error')) return 'blocked';
  if (step.events.some((e) => e.type === 'bot_challenge')) return 'blocked';
  if (step.actions.some((a) => a.verdict.verdict === 'needs_approval')) return 'approval';
  return step.actions.length > 0 ? 'allowed' : 'code';
}

/** The step's title: the page's own name, else the first action in words. */
function stepTitle(step: StepRecord): string {
  const page = pageName(step);
  if (page) return page;
  const first = step.actions[0];
  return first ? describeAction(first.action, first.element) : `Step ${step.index}`;
}

/** How long the step took, in words a person reads at a glance: 840 ms, 2.4 s, 1 min 05 s. */
function stepDuration(step: StepRecord): string {
  const ms = Date.parse(step.endedAt) - Date.parse(step.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * The run as a strip of frames, like a trace viewer's: one small screenshot per step with its
 * title, duration and a verdict colour; a click goes to that step (the arrow keys still do).
 */
export function Filmstrip({ steps, at, onPick, broken }: { steps: readonly StepRecord[]; at: number; onPick: (i: number) => void; broken: number | null }) {
  const strip = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const current = strip.current?.querySelector<HTMLElement>('[aria-current="step"]');
    current?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [at]);
  return (
    <ol className="filmstrip" ref={strip} aria-label="Filmstrip: one frame per step">
      {steps.map((s, i) => {
        const verdict = stepVerdict(s);
        const title = stepTitle(s);
        const isBroken = broken !== null && s.index >= broken;
        return (
          <li key={s.index} data-step={s.index}>
            <button
              type="button"
              className={`frame frame-${verdict}${i === at ? ' frame-current' : ''}${isBroken ? ' frame-broken' : ''}`}
              aria-current={i === at ? 'step' : undefined}
              aria-label={`Step ${s.index}: ${title}, ${VERDICT_WORDS[verdict]}, ${stepDuration(s)}`}
              title={`#${s.index} ${title} · ${VERDICT_WORDS[verdict]} · ${stepDuration(s)}${isBroken ? ' · chain broken here' : ''}`}
              onClick={() => onPick(i)}
            >
              <FrameThumb hash={s.screenshotHash} />
              <span className="frame-title">
                <span className="frame-n">#{s.index}</span> {title}
              </span>
              <span className="frame-meta">
                <span className="frame-mark" aria-hidden="true" />
                <span className="frame-verdict">{VERDICT_WORDS[verdict]}</span>
                <span className="frame-ms">{stepDuration(s)}</span>
                {s.fullPageHash && (
                  <span className="frame-fullpage" title="A full-page picture was kept at this gated step">
                    full page
                  </span>
                )}
              </span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** The step's screenshot, small; a placeholder while it loads, or when retention purged it (the chain keeps its hash). */
function FrameThumb({ hash }: { hash: string | null }) {
  const model = useModel();
  const shot = useScreenshot(model.api, hash);
  if (!hash) return <span className="frame-thumb frame-none">no screenshot</span>;
  if (shot.missing) return <span className="frame-thumb frame-none" title="Purged by retention: the chain keeps its hash, the picture is gone">purged</span>;
  if (!shot.url) return <span className="frame-thumb frame-loading">loading…</span>;
  return <img className="frame-thumb" src={shot.url} alt="" />;
}
