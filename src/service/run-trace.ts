import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { errorText } from '../base/error-text';
import type { RunListener } from '../agent/loop/run-loop';
import type { RunRecorder } from '../shared/recorder';
import { FINAL_STATUSES } from '../shared/run';
import type { TraceKeeper, TraceRecord } from '../shared/trace';

/**
 * `run --trace`: a Playwright trace of the run's context (DOM snapshots, screenshots, network,
 * console) for an auditor who wants the DOM. It starts only once code's sign-in is done (the
 * first step recorded after a `signed_in` event, or the first page without a password box when
 * the saved login state spared the sign-in), so the password is never typed while tracing. It
 * stops just before the run's final status is written, the keeper scans the zip for every secret
 * the run registered (a later sign-in or a one-time code would be caught there) and keeps or
 * drops it, and what became of it goes into the run's chained outcome record.
 */
export class RunTrace {
  private state: 'waiting' | 'tracing' | 'finished' = 'waiting';
  private starting: Promise<void> | null = null;
  private readonly secrets = new Set<string>();
  private signedIn = false;
  private problem: string | null = null;

  constructor(
    private readonly context: BrowserContext,
    private readonly keeper: TraceKeeper,
    private readonly runId: string,
  ) {}

  /** The run's listener, watching each recorded step for the end of code's sign-in. */
  listener(inner: RunListener | undefined): RunListener {
    return {
      ...inner,
      step: (step) => {
        inner?.step?.(step);
        if (step.events.some((e) => e.type === 'signed_in')) this.signedIn = true;
        if (this.state === 'waiting' && (this.signedIn || !step.observation.hasPasswordField)) this.start();
      },
    };
  }

  /** The run's recorder: secrets are noted for the scan, and a final status carries the trace's fate. */
  recorder(inner: RunRecorder): RunRecorder {
    return {
      createRun: (run, options) => inner.createRun(run, options),
      recordStep: (step, screenshot, pictures) => inner.recordStep(step, screenshot, pictures),
      updateRun: async (runId, patch) => {
        if (patch.status && FINAL_STATUSES.includes(patch.status) && runId === this.runId && this.state !== 'finished') {
          return inner.updateRun(runId, { ...patch, trace: await this.finish() });
        }
        return inner.updateRun(runId, patch);
      },
      getRun: (runId) => inner.getRun(runId),
      listSteps: (runId) => inner.listSteps(runId),
      getProgress: (clientId, portal, task) => inner.getProgress(clientId, portal, task),
      saveProgress: (progress, runId) => inner.saveProgress(progress, runId),
      ...(inner.holds ? { holds: (runId: string) => inner.holds!(runId) } : {}),
      registerSecret: (secret, runId) => {
        this.secrets.add(secret);
        inner.registerSecret(secret, runId);
      },
    };
  }

  /** Notes a secret that must not be in the trace (the run's stored password, given to the loop). */
  addSecret(secret: string): void {
    this.secrets.add(secret);
  }

  private start(): void {
    this.state = 'tracing';
    this.starting = this.context.tracing.start({ screenshots: true, snapshots: true, title: `Portal Desk run ${this.runId}` }).then(
      () => undefined,
      (err: unknown) => {
        this.problem = `tracing did not start (${errorText(err)})`;
      },
    );
  }

  /** Stops tracing and hands the zip to the keeper; answers what became of it. */
  private async finish(): Promise<TraceRecord> {
    const was = this.state;
    this.state = 'finished';
    if (was === 'waiting') return { kept: false, reason: 'code never finished signing in, so tracing never started (the password is never typed while tracing)' };
    await this.starting;
    if (this.problem) return { kept: false, reason: this.problem };
    // A private folder (0700) for the zip Playwright writes with the default mode, until the keeper has read it.
    const dir = mkdtempSync(join(tmpdir(), 'pd-trace-'));
    try {
      const zip = join(dir, 'trace.zip');
      try {
        await this.context.tracing.stop({ path: zip });
      } catch (err) {
        return { kept: false, reason: `the trace could not be finished (${errorText(err)})` };
      }
      return this.keeper.keep(zip, this.runId, [...this.secrets]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
