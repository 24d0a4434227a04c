import { GuardEventRelay, installWatchdogs } from '../agent/guard/browser';
import { CommitGate } from '../agent/guard/commit-gate';
import { newRunId } from '../agent/loop/run-id';
import { createObserver } from '../agent/observe/observer';
import { ReadOnlyTask, type ReadExtractor, type ReadTaskResult } from '../agent/read/read-task';
import { taskKindOf } from '../shared/case-file';
import { FINAL_STATUSES } from '../shared/run';
import { openClientContext } from './client-context';
import { receiptFolder, receiptsHome } from './receipt-folder';
import type { RunRequest, RunServices } from './run-service';

/**
 * Runs a read-only case (its `read` kind `status` or `extract`): the same isolated, guarded
 * browser context as a form run, the same store, but no planner loop: `ReadOnlyTask` reads the
 * page and extracts the answer (by code's rules with `--model rules`, by one model call with
 * `--model anthropic`). Nothing on the page is touched; the run and its steps replay like any.
 */
export async function executeReadRun(services: RunServices, request: RunRequest): Promise<ReadTaskResult & { runId: string; wallMs: number }> {
  const started = Date.now();
  const { store, browser } = services;
  const { caseFile, profile } = request;
  const kind = taskKindOf(caseFile);
  if (kind === 'fill') throw new Error(`Case ${caseFile.caseId} fills a form; it is not a read-only task`);
  const extractor: ReadExtractor = request.planner === 'anthropic' ? { kind: 'model', options: { ...services.anthropic, env: services.env ?? process.env } } : { kind: 'rules' };

  let runId = request.runId;
  let firstStep = 0;
  if (runId) {
    const existing = await store.getRun(runId);
    if (!existing) throw new Error(`No run ${runId} in the store`);
    if (FINAL_STATUSES.includes(existing.status)) throw new Error(`Run ${runId} is already ${existing.status} (${existing.reason ?? 'no reason recorded'}); a final run is not resumed.`);
    firstStep = existing.stepCount;
    // The same client+portal lock as a new run: a second resume of it, or beside a live run of the client, is refused.
    await store.resumeRun(runId, `Resumed at step ${firstStep}`);
  } else {
    runId = request.newRunId ?? newRunId();
    await store.createRun(
      {
        id: runId,
        caseId: caseFile.caseId,
        clientId: caseFile.clientId,
        portal: caseFile.portal,
        task: caseFile.task,
        planner: extractor.kind === 'model' ? 'anthropic' : 'rules',
        approveMode: request.approveMode,
        status: 'running',
        reason: `Starting a read-only ${kind} task`,
        caseJson: JSON.stringify({ caseFile, profile, planner: request.planner, layout: request.layout }),
        layout: request.layout,
        startedAt: new Date().toISOString(),
      },
      { oneLivePerClient: true },
    );
  }

  const context = await openClientContext(browser, profile, caseFile.clientId, services.loginStates);
  const relay = new GuardEventRelay();
  const gate = new CommitGate(profile);
  const watchdogs = await installWatchdogs(context, profile, relay.sink, { gate });
  const page = await watchdogs.openPage();
  request.onStart?.(runId);
  await request.onPage?.(page);
  const task = new ReadOnlyTask({
    runId,
    page,
    profile,
    caseFile,
    observer: createObserver(),
    recorder: store,
    inputs: services.inputs,
    credentials: services.credentials,
    gate,
    extractor,
    loginStates: services.loginStates,
    // Beside the SQLite file, or in this desk's data folder for the office store (as a form run keeps them).
    receipts: receiptFolder(receiptsHome(store)),
    listener: request.listener,
    firstStep,
  });
  relay.deliverTo(task);
  try {
    const result = await task.run();
    return { ...result, runId, wallMs: Date.now() - started };
  } finally {
    await context.close().catch(() => undefined);
  }
}
