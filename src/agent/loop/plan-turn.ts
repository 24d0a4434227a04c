import { withGatedControls } from '../decide/gated-controls';
import { isModelServiceStop, PlannerError, type PlanResult } from '../decide/planner';
import type { PageRead } from '../observe/page-read';
import { failed, type RunEnding } from './outcomes';
import type { RunContext } from './run-context';

type PlanOutcome = { kind: 'planned'; plan: PlanResult } | { kind: 'end'; ending: RunEnding };

/**
 * The planner's turn for this read (told what the last turn did and what code noted since).
 * A planner that cannot go on ends the run: `interrupted` (resumable) when the model service
 * stopped it, `failed` otherwise. Any other error is the driver's to report.
 */
export async function planTurn(read: PageRead, screenshot: Uint8Array | null, run: RunContext): Promise<PlanOutcome> {
  const { o, state } = run;
  try {
    const plan = await o.planner.decide({
      step: state.step,
      observation: withGatedControls(run.secrets.redact(read.observation), o.profile.riskyWords),
      previous: state.previous,
      notes: state.notes,
      clerkFields: run.plainClerkValues(),
      signal: run.deadline.signal,
      screenshot: async () => {
        const png = screenshot ?? (await run.screenshot());
        if (!png) throw new Error('no screenshot of this page');
        return png;
      },
    });
    state.notes = [];
    state.turnReasoning = plan.turn.reasoning;
    state.turnSource = plan.source ?? 'planner';
    return { kind: 'planned', plan };
  } catch (err) {
    if (!(err instanceof PlannerError) || run.deadline.signal.aborted) throw err;
    if (isModelServiceStop(err.kind)) {
      // Nothing ran for this step and the store holds everything before it: resumable.
      return { kind: 'end', ending: { status: 'interrupted', reason: `Stopped by the model service at step ${state.step} (${err.kind}): ${err.message} Continue with "portal-desk resume ${o.runId}".` } };
    }
    return { kind: 'end', ending: failed(err.kind === 'auth' ? 'API key rejected' : `The planner could not continue (${err.kind}): ${err.message}`) };
  }
}
