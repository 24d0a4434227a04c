import { useCallback, useEffect, useState } from 'react';
import type { ClerkInputEvent, RunView } from '../../../shared/console-api';
import { caseValues } from '../case-values';
import { useConsoleState, useModel } from '../console-context';
import { messageOf } from '../console-model';
import { go, href } from '../route';
import { isBotChallenge, isLive, isResumable } from '../status';
import { ApprovalCard } from '../parts/approval-card';
import { InputCard } from '../parts/input-card';
import { LivePortal } from '../parts/live-portal';
import { OfficeWaitCard } from '../parts/office-panel';
import { StatusHeader } from '../parts/status-header';
import { StepEntry } from '../parts/step-entry';
import { TakeOverCard } from '../parts/take-over-card';

/** One run, live: the portal as the agent sees it beside the step log, and whatever the run waits for. */
export function RunScreen({ runId }: { runId: string }) {
  const model = useModel();
  const state = useConsoleState();
  const view = state.runs.get(runId);
  const steps = state.steps.get(runId);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    void model.loadSteps(runId);
    if (!model.getSnapshot().runs.has(runId)) model.loadRun(runId).catch((err: unknown) => setProblem(messageOf(err)));
  }, [model, runId]);

  const sendInput = useCallback(
    (events: ClerkInputEvent[]) => {
      model.api.takeOverInput({ runId, events }).then(
        ({ accepted }) => {
          if (!accepted) setProblem('The portal is no longer yours: the run took it back or ended.');
        },
        (err: unknown) => setProblem(messageOf(err)),
      );
    },
    [model, runId],
  );
  const loadPicture = useCallback(() => model.api.approvalPicture({ runId }).then((r) => r.pngBase64, () => null), [model, runId]);

  if (!view) return <div className="screen">{problem ? <p className="banner banner-failed">{problem}</p> : <p className="empty">Loading run…</p>}</div>;

  const lastStep = steps?.[steps.length - 1];
  const values = caseValues(view.run);
  const act = async (what: () => Promise<{ accepted: boolean }>) => {
    setProblem(null);
    try {
      const { accepted } = await what();
      if (!accepted) setProblem('The run was no longer waiting for that (someone else answered, or it ended).');
    } catch (err) {
      setProblem(messageOf(err));
    }
  };
  const restart = restarter(view, state.cases, model.api.startRun, setProblem);
  const live = isLive(view);
  const takeOver = view.pendingTakeOver;
  const takenOver = takeOver?.state === 'active';
  const officeWaits = state.office?.waits.filter((w) => w.runId === runId) ?? [];
  const resume = async () => {
    setProblem(null);
    try {
      await model.api.resumeRun({ runId });
    } catch (err) {
      setProblem(messageOf(err));
    }
  };

  return (
    <div className="screen run-screen">
      <StatusHeader view={view} lastStep={lastStep} />
      {problem && <p className="banner banner-failed">{problem}</p>}
      <div className="run-columns">
        <section className={`panel live-panel${takenOver ? ' live-panel-taken' : ''}`} aria-label="Live portal">
          <h2>
            {takenOver ? (
              <>
                <span className="live-dot live-dot-clerk" aria-hidden="true" /> The portal — yours now
              </>
            ) : live ? (
              <>
                <span className="live-dot" aria-hidden="true" /> Live portal
              </>
            ) : (
              'Last screen'
            )}
            {live && !takeOver && !view.pendingApproval && !view.pendingInput && (
              <button type="button" className="btn btn-secondary btn-small panel-action" onClick={() => void act(() => model.api.takeOver({ runId }))} title="Stop the agent after its current action and work the portal yourself">
                Take over
              </button>
            )}
          </h2>
          <LivePortal frame={state.frames.get(runId)} lastStep={lastStep} live={live} takenOver={takenOver} onInput={sendInput} />
          <div className="panel-links">
            {!live && <a href={href({ name: 'replay', runId })}>Replay this run step by step →</a>}
            {!live && !isResumable(view) && view.run.status !== 'done' && restart && (
              <button type="button" className="btn btn-secondary" onClick={() => void restart()}>
                {isBotChallenge(view) ? 'Start the case again' : 'Run this case again'}
              </button>
            )}
          </div>
        </section>
        <div className="run-side">
        {view.pendingApproval && (
          <ApprovalCard
            key={`${view.pendingApproval.step}-${JSON.stringify(view.pendingApproval.action ?? view.pendingApproval.request?.url)}`}
            request={view.pendingApproval}
            detail={view.approvalDetail?.step === view.pendingApproval.step ? view.approvalDetail : null}
            loadPicture={loadPicture}
            onDecide={(decision, note) => act(() => model.api.decide({ runId, decision, ...(note ? { note } : {}) }))}
          />
        )}
        {view.pendingInput && (
          <InputCard
            key={`${view.pendingInput.step}-${view.pendingInput.kind}-${view.pendingInput.problem ?? ''}`}
            request={view.pendingInput}
            onAnswer={(value) => act(() => model.api.answer({ runId, value }))}
            onResend={() => act(() => model.api.resendCode({ runId }))}
          />
        )}
        {officeWaits.length > 0 && (
          <section className="card office-run-waits" aria-label="Office waits of this run">
            <h2>Waiting for a clerk of the office</h2>
            <p className="sub">This run waits on the office database: any clerk of the office may answer, the first answer counts.</p>
            <ul className="office-waits">
              {officeWaits.map((w) => (
                <OfficeWaitCard key={w.id} wait={w} />
              ))}
            </ul>
          </section>
        )}
        {takeOver && (
          <TakeOverCard
            takeOver={takeOver}
            onTake={() => act(() => model.api.takeOver({ runId }))}
            onEnd={(decision, note) => act(() => model.api.handBack({ runId, decision, ...(note ? { note } : {}) }))}
          />
        )}
        {isResumable(view) && (
          <section className="card card-idle resume-card" aria-label="Resume">
            <h2>This run stopped before it ended</h2>
            <p>{view.run.reason ?? 'The run was interrupted.'} Resuming continues the same run: code signs in again, reopens the saved draft, and checks the portal’s applications list before any submit, so nothing is submitted twice.</p>
            <div className="buttons">
              <button type="button" className="btn btn-primary" onClick={() => void resume()}>
                Resume this run
              </button>
            </div>
          </section>
        )}
        <section className="panel log-panel" aria-label="Step log">
          <h2>Step log {steps ? <span className="count">{steps.length}</span> : null}</h2>
          {!steps || steps.length === 0 ? (
            <p className="empty">{live ? 'No step yet: the run is starting (see above).' : 'No steps recorded.'}</p>
          ) : (
            <ol className="step-log" reversed>
              {[...steps].reverse().map((s) => (
                <StepEntry key={s.index} step={s} values={values} />
              ))}
            </ol>
          )}
        </section>
        </div>
      </div>
    </div>
  );
}

/** Starting the same case again as a new run, when its file is still in the cases folder. */
function restarter(
  view: RunView,
  cases: ReturnType<typeof useConsoleState>['cases'],
  startRun: ReturnType<typeof useModel>['api']['startRun'],
  setProblem: (p: string | null) => void,
): (() => Promise<void>) | null {
  const file = cases?.find((c) => c.caseId === view.run.caseId && !c.problem)?.file;
  if (!file) return null;
  const values = caseValues(view.run);
  return async () => {
    setProblem(null);
    try {
      const { runId } = await startRun({ file, planner: values.planner, ...(values.layout ? { layout: values.layout } : {}) });
      go({ name: 'run', runId });
    } catch (err) {
      setProblem(messageOf(err));
    }
  };
}
