import { useCallback, useEffect, useState } from 'react';
import type { VerifyResult } from '../../../shared/console-api';
import type { StepRecord } from '../../../shared/run';
import { otherEvents, pageErrorsOf, requestsOf } from '../../../shared/step-log';
import { caseValues } from '../case-values';
import { useConsoleState, useModel } from '../console-context';
import { messageOf } from '../console-model';
import { go } from '../route';
import { isLive } from '../status';
import { isTyping } from '../parts/approval-card';
import { StatusChip } from '../parts/chips';
import { Filmstrip } from '../parts/filmstrip';
import { StepScreenshot } from '../parts/screenshot';
import { StepActions } from '../parts/step-actions';
import { pageName } from '../parts/step-entry';
import { When } from '../parts/when';
import { useScreenshot } from '../screenshots';
import './replay-screen.css';

/** For auditors: a run step by step (← →), whether its hash chain holds, and the HTML export. */
export function ReplayScreen({ runId }: { runId: string | undefined }) {
  const state = useConsoleState();
  const runs = [...state.runs.values()].sort((a, b) => b.run.startedAt.localeCompare(a.run.startedAt));
  const chosen = runId ?? runs.find((v) => !isLive(v))?.run.id;

  return (
    <div className="screen replay-screen">
      <div className="replay-picker">
        <label>
          Run
          <select value={chosen ?? ''} onChange={(e) => go({ name: 'replay', runId: e.target.value })} aria-label="Run to replay">
            {!chosen && <option value="">— choose a run —</option>}
            {runs.map((v) => (
              <option key={v.run.id} value={v.run.id}>
                {v.run.caseId} · {v.run.status} · <When iso={v.run.startedAt} />
              </option>
            ))}
          </select>
        </label>
      </div>
      {chosen ? <Replay key={chosen} runId={chosen} /> : <p className="empty">No runs to replay yet.</p>}
    </div>
  );
}

function Replay({ runId }: { runId: string }) {
  const model = useModel();
  const state = useConsoleState();
  const view = state.runs.get(runId);
  const steps = state.steps.get(runId) ?? [];
  const [at, setAt] = useState(0);
  const [verify, setVerify] = useState<VerifyResult | 'checking' | { error: string }>('checking');
  const [exported, setExported] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    void model.loadSteps(runId);
  }, [model, runId]);

  const check = useCallback(async () => {
    setVerify('checking');
    try {
      setVerify(await model.api.verifyRun({ runId }));
    } catch (err) {
      setVerify({ error: messageOf(err) });
    }
  }, [model, runId]);
  useEffect(() => {
    void check();
  }, [check]);

  const last = steps.length - 1;
  const index = Math.min(at, Math.max(last, 0));
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'ArrowRight') setAt((i) => Math.min(i + 1, last));
      else if (e.key === 'ArrowLeft') setAt((i) => Math.max(i - 1, 0));
      else if (e.key === 'Home') setAt(0);
      else if (e.key === 'End') setAt(last);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [last]);

  const exportHtml = async () => {
    setProblem(null);
    setExported(null);
    try {
      // The console service writes the file owner-only (0600) and says where: no browser download, which would be world-readable.
      const { savedTo, bytes } = await model.api.exportRun({ runId });
      setExported(`${savedTo} (${Math.max(1, Math.round(bytes / 1024))} KB, readable by you only)`);
    } catch (err) {
      setProblem(messageOf(err));
    }
  };

  if (!view) return <p className="empty">Loading run…</p>;
  const step = steps[index];
  const values = caseValues(view.run);
  return (
    <>
      <header className="replay-head panel">
        <div className="replay-title">
          <StatusChip status={view.run.status} />
          <strong>{view.run.caseId}</strong>
          <span className="sub">
            {view.run.clientId} · {view.run.portal} · started <When iso={view.run.startedAt} />
            {view.run.applicationNumber ? ` · application ${view.run.applicationNumber}` : ''}
          </span>
        </div>
        <VerifyBadge verify={verify} onRecheck={() => void check()} />
        <div className="replay-export">
          <button type="button" className="btn btn-secondary" onClick={() => void exportHtml()}>
            Export HTML report
          </button>
          {exported && (
            <span className="sub export-saved" role="status" aria-label="Report saved">
              Saved to {exported}
            </span>
          )}
        </div>
      </header>
      {problem && <p className="banner banner-failed">{problem}</p>}
      {steps.length === 0 ? (
        <p className="empty">This run has no recorded steps.</p>
      ) : (
        <>
          <Scrubber steps={steps} at={index} onPick={setAt} broken={typeof verify === 'object' && 'ok' in verify && !verify.ok ? verify.brokenStep : null} />
          {step && <StepDetail step={step} values={values} />}
        </>
      )}
    </>
  );
}

function VerifyBadge({ verify, onRecheck }: { verify: VerifyResult | 'checking' | { error: string }; onRecheck: () => void }) {
  let text: string;
  let tone: string;
  if (verify === 'checking') {
    text = 'Checking the hash chain…';
    tone = 'idle';
  } else if ('error' in verify) {
    text = `Could not check: ${verify.error}`;
    tone = 'failed';
  } else if (verify.ok) {
    text = `Intact — ${verify.steps} step${verify.steps === 1 ? '' : 's'} verified`;
    tone = 'done';
  } else {
    text = `Broken at step ${verify.brokenStep}: ${verify.problem}`;
    tone = 'failed';
  }
  const result = verify !== 'checking' && 'ok' in verify ? verify : null;
  return (
    <div className={`verify verify-${tone}`} role="status" aria-label="Chain verification">
      <span>{text}</span>
      {result?.ok && result.headHash && <span className="mono sub">head {result.headHash.slice(0, 16)}…</span>}
      {result && !result.ok && (result.where || result.field) && (
        <span className="verify-field">
          {result.field ? (
            <>
              field <code>{result.field}</code>
              {result.where ? ` of the ${result.where} record` : ''}
            </>
          ) : (
            `in the ${result.where} record`
          )}
        </span>
      )}
      {result?.ok && (
        <details className="verify-scope">
          <summary>
            What the chain proves{result.purgedScreenshots > 0 ? ` · ${result.purgedScreenshots} screenshot${result.purgedScreenshots === 1 ? '' : 's'} purged` : ''}
          </summary>
          <ul>
            {result.covers.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <p className="verify-cannot">
            <strong>Cannot prove:</strong> {result.cannot}
          </p>
        </details>
      )}
      <button type="button" className="btn btn-quiet" onClick={onRecheck}>
        Verify again
      </button>
    </div>
  );
}

/** The steps as a filmstrip of frames, coloured by what happened in each, with previous/next and the position. */
function Scrubber({ steps, at, onPick, broken }: { steps: readonly StepRecord[]; at: number; onPick: (i: number) => void; broken: number | null }) {
  return (
    <div className="scrubber panel" aria-label="Timeline">
      <button type="button" className="btn btn-quiet" onClick={() => onPick(Math.max(at - 1, 0))} disabled={at === 0} aria-label="Previous step">
        ‹ Previous
      </button>
      <button type="button" className="btn btn-quiet" onClick={() => onPick(Math.min(at + 1, steps.length - 1))} disabled={at === steps.length - 1} aria-label="Next step">
        Next ›
      </button>
      <span className="scrub-pos" aria-live="polite">
        #{steps[at]?.index ?? 0} · {at + 1} of {steps.length}
      </span>
      <span className="scrub-keys">
        <kbd>←</kbd>
        <kbd>→</kbd> step · <kbd>Home</kbd>
        <kbd>End</kbd>
      </span>
      <Filmstrip steps={steps} at={at} onPick={onPick} broken={broken} />
    </div>
  );
}

function StepDetail({ step, values }: { step: StepRecord; values: ReturnType<typeof caseValues> }) {
  const o = step.observation;
  const events = otherEvents(step.events);
  const requests = requestsOf(step.events, step.requests);
  const pageErrors = pageErrorsOf(step.events);
  const hasAfter = step.afterScreenshotHash !== undefined;
  return (
    <>
      <section className="step-detail" aria-label={`Step ${step.index}`}>
        <div className="detail-shot">
          <div className={hasAfter ? 'replay-pictures replay-pictures-two' : 'replay-pictures'}>
            <figure>
              <StepScreenshot hash={step.screenshotHash} alt={`Step ${step.index}: the page the agent read`} size="large" />
              <figcaption className="shot-caption">{hasAfter ? 'Before: ' : ''}the page as the agent read it, before this step’s actions. Password fields are masked.</figcaption>
            </figure>
            {hasAfter && (
              <figure>
                <StepScreenshot hash={step.afterScreenshotHash ?? null} alt={`Step ${step.index}: the page after its actions`} size="large" />
                <figcaption className="shot-caption">After: once the actions ran and the page settled.</figcaption>
              </figure>
            )}
          </div>
        </div>
        <div className="detail-body panel">
          <h2>
            #{step.index} {pageName(step)}
          </h2>
          <dl className="facts">
            <dt>Page</dt>
            <dd>{o.title}</dd>
            <dt>Address</dt>
            <dd className="mono">{o.url}</dd>
            <dt>Time</dt>
            <dd>
              <When iso={step.startedAt} /> – <When iso={step.endedAt} />
            </dd>
            <dt>Controls</dt>
            <dd>
              {o.controls.length} read{o.omittedControls ? `, ${o.omittedControls} left out` : ''}
            </dd>
            {step.model && (
              <>
                <dt>Planner</dt>
                <dd>
                  {step.model.planner}
                  {step.model.model ? ` · ${step.model.model}` : ''} · {Math.round(step.model.ms)} ms
                  {step.model.imageSent ? ' · screenshot sent' : ''}
                </dd>
              </>
            )}
          </dl>
          {o.errors.length > 0 && (
            <ul className="page-errors">
              {o.errors.map((e, i) => (
                <li key={i}>Page error{e.field ? ` (${e.field})` : ''}: {e.message}</li>
              ))}
            </ul>
          )}
          <h3>Reasoning</h3>
          <p className="reasoning">{step.reasoning || '—'}</p>
          {events.length > 0 && (
            <>
              <h3>What code did or saw</h3>
              <ul className="events">
                {events.map((e, i) => (
                  <li key={i}>
                    <span className="event-type">{e.type.replace(/_/g, ' ')}</span> {e.message}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3>Actions</h3>
          {step.actions.length === 0 ? <p className="muted">None: code handled this page.</p> : <StepActions actions={step.actions} values={values} />}
        </div>
      </section>
      <div className="replay-panes">
        <section className="panel replay-pane" aria-label="Requests">
          <h3>
            Requests <span className="sub">{requests.sent} let through · {requests.stopped} stopped</span>
          </h3>
          {requests.lines.length === 0 ? (
            <p className="muted">No request of this step was judged by the egress lock or the commit gate.</p>
          ) : (
            <table className="requests-table">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Outcome</th>
                  <th>Request</th>
                  <th>Judged by</th>
                  <th>Rule</th>
                </tr>
              </thead>
              <tbody>
                {requests.lines.map((r, i) => (
                  <tr key={i} className={`request-${r.outcome}`}>
                    <td>
                      <When iso={r.at} />
                    </td>
                    <td>
                      <span className={`request-outcome request-outcome-${r.outcome}`}>{r.outcome === 'sent' ? 'let through' : r.outcome}</span>
                    </td>
                    <td>
                      <span className="mono">
                        {r.method ?? ''} {r.url ?? ''}
                      </span>
                      {r.count > 1 && <span className="request-count"> ×{r.count}</span>}
                      <span className="request-why">{r.message}</span>
                    </td>
                    <td>{r.by}</td>
                    <td>
                      <code>{r.rule}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {requests.hidden > 0 && (
            <p className="muted events-hidden">
              {requests.hidden} browser background request{requests.hidden === 1 ? '' : 's'} hidden: Chromium’s own traffic (autofill, safe browsing…), refused by the egress lock, not the
              page or the agent. Kept in the run’s raw log and the export.
            </p>
          )}
        </section>
        <section className="panel replay-pane" aria-label="Page errors">
          <h3>
            Page errors <span className="sub">{pageErrors.length}</span>
          </h3>
          {pageErrors.length === 0 ? (
            <p className="muted">No script error, console error or failed load was recorded in this step.</p>
          ) : (
            <ul className="events">
              {pageErrors.map((e, i) => (
                <li key={i}>
                  <span className="event-type">{e.kind}</span> <When iso={e.at} /> {e.message}
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      {step.fullPageHash && <FullPage hash={step.fullPageHash} index={step.index} />}
    </>
  );
}

/** The whole page at a gated step, at its own width, in a box that scrolls. */
function FullPage({ hash, index }: { hash: string; index: number }) {
  const model = useModel();
  const shot = useScreenshot(model.api, hash);
  return (
    <section className="panel replay-fullpage" aria-label={`Full page at step ${index}`}>
      <h3>
        Full page at this gated step <span className="sub">scroll inside the frame · sha256 {hash.slice(0, 12)}…</span>
      </h3>
      {shot.url ? (
        <div className="fullpage-scroll" tabIndex={0}>
          <img src={shot.url} alt={`The whole page at step ${index}`} />
        </div>
      ) : (
        <p className="muted">{shot.missing ? 'Purged by retention: the chain keeps its hash, the picture is gone.' : 'loading…'}</p>
      )}
    </section>
  );
}
