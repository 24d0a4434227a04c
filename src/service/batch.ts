import type { Browser } from 'playwright-core';
import type { CaseFile } from '../shared/case-file';
import { FINAL_STATUSES, type RunStatus, type StepRecord } from '../shared/run';
import { executeRun, type RunRequest, type RunServices } from './run-service';
import { WorkPlaces, type PlaceHold } from './work-places';
import { errorText } from '../base/error-text';

/** One entry of a batch queue: a case file read and checked, or the one line saying why it cannot run. */
export type BatchEntry = { source: string; caseFile: CaseFile } | { source: string; problem: string };

/** What a batch says about one entry once it is over. */
export interface BatchOutcome {
  /** Where the entry came from (the case file's path). */
  source: string;
  caseId?: string;
  clientId?: string;
  portal?: string;
  /** A run's final status; `invalid`: refused before anything ran; `error`: the run broke outside its loop. */
  status: RunStatus | 'invalid' | 'error';
  reason: string;
  runId?: string;
  applicationNumber?: string;
  steps: number;
  approvals: number;
  wallMs: number;
}

interface BatchListener {
  /** A run exists in the store and is about to take its first step. */
  started?(caseFile: CaseFile, runId: string): void;
  step?(caseFile: CaseFile, step: StepRecord): void;
  status?(caseFile: CaseFile, status: RunStatus, reason: string | undefined): void;
  /** Every entry ends here exactly once, refused ones included. */
  finished?(outcome: BatchOutcome): void;
}

/** What one case's run needs beyond the case file and the shared services. */
export interface BatchRun {
  /** The browser its context opens in (lab portals need one that resolves the lab's host names). */
  browser: Browser;
  /** Its portal profile (bound to the lab for lab portals), planner, approve mode, limits; its own `onStart` and `listener` are told as well as the batch's. */
  request: Omit<RunRequest, 'caseFile'>;
  /** Services of this run only (its logins, its clerk's gates), over the plan's shared ones. */
  services?: Partial<Omit<RunServices, 'browser'>>;
  /** Called once the run is over, whatever its outcome, before the next entry of its client may start. */
  release?(): void | Promise<void>;
}

interface BatchPlan {
  /** At most this many runs at once. */
  concurrency: number;
  /** Shared by every run: the clerk's gate and input source are asked with the run's id. */
  services: Omit<RunServices, 'browser'>;
  /**
   * Called right before a case runs. An error refuses the entry with the error's message and the
   * others go on.
   */
  prepare(caseFile: CaseFile): Promise<BatchRun>;
  listener?: BatchListener;
  /**
   * Clients and portals held outside this batch (the clerk's own run of that client in the same
   * console): such an entry waits without taking one of the batch's places, and the batch looks
   * again whenever a slot comes free.
   */
  outside?: { held(caseFile: CaseFile): boolean; onRelease(listener: () => void): () => void };
}

/**
 * Runs a queue of case files, at most `concurrency` working at a time (`WorkPlaces`: a run waiting
 * for the clerk holds no working place, so a clerk away does not stall the queue), each run in its
 * own browser context (`executeRun`). Two entries
 * for the same client and portal never run at once (they would share one portal account and
 * could both submit): the later one waits for the earlier. A refused entry, or a run that breaks,
 * is reported and the queue goes on. Outcomes come back in queue order.
 */
export async function runBatch(entries: readonly BatchEntry[], plan: BatchPlan): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = new Array<BatchOutcome>(entries.length);
  const finish = (index: number, outcome: BatchOutcome) => {
    outcomes[index] = outcome;
    plan.listener?.finished?.(outcome);
  };

  const waiting: { index: number; entry: Runnable }[] = [];
  entries.forEach((entry, index) => {
    if ('problem' in entry) finish(index, refusedOutcome(entry));
    else waiting.push({ index, entry });
  });

  const held = new Set<string>();
  const slotOf = (c: CaseFile) => `${c.clientId}\u0000${c.portal}`;
  const places = new WorkPlaces(Math.max(1, Math.floor(plan.concurrency)));

  const stopListening: (() => void)[] = [];
  await new Promise<void>((allDone) => {
    const pump = (): void => {
      if (waiting.length === 0 && places.openRuns === 0) return allDone();
      while (places.hasRoom) {
        const at = waiting.findIndex((w) => !held.has(slotOf(w.entry.caseFile)) && !plan.outside?.held(w.entry.caseFile));
        if (at < 0) return;
        const { index, entry } = waiting.splice(at, 1)[0]!;
        const slot = slotOf(entry.caseFile);
        held.add(slot);
        const place = places.take();
        void runOne(entry, plan, place).then((outcome) => {
          held.delete(slot);
          finish(index, outcome);
          place.release();
        });
      }
    };
    stopListening.push(places.onChange(pump));
    if (plan.outside) stopListening.push(plan.outside.onRelease(pump));
    pump();
  });
  for (const stop of stopListening) stop();
  return outcomes;
}

type Runnable = Extract<BatchEntry, { caseFile: CaseFile }>;

/** The outcome of an entry refused before anything ran. */
export function refusedOutcome(entry: Extract<BatchEntry, { problem: string }>): BatchOutcome {
  return { source: entry.source, status: 'invalid', reason: entry.problem, steps: 0, approvals: 0, wallMs: 0 };
}

/** One run; never throws: whatever goes wrong becomes the outcome's reason. */
async function runOne(entry: Runnable, plan: BatchPlan, place: PlaceHold): Promise<BatchOutcome> {
  const { caseFile } = entry;
  const base = { source: entry.source, caseId: caseFile.caseId, clientId: caseFile.clientId, portal: caseFile.portal };
  const started = Date.now();
  let prepared: BatchRun;
  try {
    prepared = await plan.prepare(caseFile);
  } catch (err) {
    return { ...base, status: 'invalid', reason: errorText(err), steps: 0, approvals: 0, wallMs: 0 };
  }
  let runId: string | undefined;
  const services = { ...plan.services, ...prepared.services, browser: prepared.browser };
  const own = prepared.request;
  try {
    const finished = await executeRun(services, {
      ...own,
      caseFile,
      onStart: (id) => {
        runId = id;
        own.onStart?.(id);
        plan.listener?.started?.(caseFile, id);
      },
      listener: {
        ...own.listener,
        step: (step) => {
          own.listener?.step?.(step);
          plan.listener?.step?.(caseFile, step);
        },
        status: (status, reason) => {
          place.status(status);
          own.listener?.status?.(status, reason);
          plan.listener?.status?.(caseFile, status, reason);
        },
      },
    });
    return {
      ...base,
      status: finished.status,
      reason: finished.reason,
      runId: finished.runId,
      applicationNumber: finished.applicationNumber,
      steps: finished.steps,
      approvals: finished.approvals,
      wallMs: finished.wallMs,
    };
  } catch (err) {
    // The loop records its own ending; an error outside it (the browser went away) is recorded here.
    const reason = `Run stopped by an error: ${errorText(err)}`;
    const wallMs = Date.now() - started;
    const run = runId ? await services.store.getRun(runId).catch(() => null) : null;
    if (run && FINAL_STATUSES.includes(run.status)) {
      // The run had ended (and said how) before the error: the store's word stands.
      return { ...base, status: run.status, reason: run.reason ?? reason, runId, applicationNumber: run.applicationNumber, steps: run.stepCount, approvals: 0, wallMs };
    }
    if (runId) await services.store.updateRun(runId, { status: 'failed', reason, endedAt: new Date().toISOString() }).catch(() => undefined);
    return { ...base, status: 'error', reason, runId, steps: run?.stepCount ?? 0, approvals: 0, wallMs };
  } finally {
    await Promise.resolve(prepared.release?.()).catch(() => undefined);
  }
}

