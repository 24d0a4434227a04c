import { useEffect, useState } from 'react';
import type { RunView } from '../../../shared/console-api';
import type { StepRecord } from '../../../shared/run';
import { caseValues } from '../case-values';
import { useConsoleState, useModel } from '../console-context';
import { messageOf } from '../console-model';
import { go, href } from '../route';
import { isBotChallenge, isLive } from '../status';
import { ApprovalCard } from '../parts/approval-card';
import { BotChallengeCard } from '../parts/bot-challenge-card';
import { InputCard } from '../parts/input-card';
import { StepScreenshot } from '../parts/screenshot';
import { StatusHeader } from '../parts/status-header';
import { StepEntry } from '../parts/step-entry';

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

  return (
    <div className="screen run-screen">
      <StatusHeader view={view} lastStep={lastStep} />
      {problem && <p className="banner banner-failed">{problem}</p>}
      {view.pendingApproval && (
        <ApprovalCard
          key={`${view.pendingApproval.step}-${JSON.stringify(view.pendingApproval.action ?? view.pendingApproval.request?.url)}`}
          request={view.pendingApproval}
          onDecide={(decision, note) => act(() => model.api.decide({ runId, decision, ...(note ? { note } : {}) }))}
        />
      )}
      {view.pendingInput && <InputCard key={`${view.pendingInput.step}-${view.pendingInput.kind}`} request={view.pendingInput} onAnswer={(value) => act(() => model.api.answer({ runId, value }))} />}
      {isBotChallenge(view) && (
        <BotChallengeCard
          what={(view.run.reason ?? '').replace(/^bot_challenge:\s*/, '')}
          startUrl={state.portals?.find((p) => p.id === view.run.portal)?.startUrl}
          onHandBack={restart}
        />
      )}
      <div className="run-columns">
        <section className="panel live-panel" aria-label="Live portal">
          <h2>
            {isLive(view) ? (
              <>
                <span className="live-dot" aria-hidden="true" /> Live portal
              </>
            ) : (
              'Last screen'
            )}
          </h2>
          <LivePortal frame={state.frames.get(runId)} lastStep={lastStep} live={isLive(view)} />
          <div className="panel-links">
            {!isLive(view) && <a href={href({ name: 'replay', runId })}>Replay this run step by step →</a>}
            {!isLive(view) && view.run.status !== 'done' && restart && !isBotChallenge(view) && (
              <button type="button" className="btn btn-secondary" onClick={() => void restart()}>
                Run this case again
              </button>
            )}
          </div>
        </section>
        <section className="panel log-panel" aria-label="Step log">
          <h2>Step log {steps ? <span className="count">{steps.length}</span> : null}</h2>
          {!steps || steps.length === 0 ? (
            <p className="empty">{isLive(view) ? 'Opening the portal…' : 'No steps recorded.'}</p>
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
  );
}

function LivePortal({ frame, lastStep, live }: { frame: string | undefined; lastStep: StepRecord | undefined; live: boolean }) {
  if (frame) return <img className="live-frame" src={`data:image/jpeg;base64,${frame}`} alt={live ? 'The portal page now' : 'The portal page at the end'} />;
  if (lastStep) return <StepScreenshot hash={lastStep.screenshotHash} alt="The portal at the last step" size="large" />;
  return <div className="live-frame live-empty">{live ? 'Waiting for the first picture of the portal…' : 'No picture of this run.'}</div>;
}

/** Starting the same case again (Hand back after a bot check, or a retry), when its file is still in the cases folder. */
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
