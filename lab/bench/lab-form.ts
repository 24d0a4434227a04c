import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { bindLabProfile, type Lab, type PortalId } from '..';
import { LabCredentials } from '../demo/lab-portals';
import { executeRun } from '../../src/service/run-service';
import type { CaseFile } from '../../src/shared/case-file';
import type { RunStatus } from '../../src/shared/run';
import type { ApprovalGate, InputSource } from '../../src/shared/clerk';
import type { Store } from '../../src/store';
import { spread, type Spread } from './stats';

/**
 * A lab form end to end: `executeRun` with the offline `rules` planner (sign-in by code, every
 * section filled from the case, Submit approved by a clerk who approves at once, the confirmation
 * page read), in a fresh browser context, recorded step by step in a real SQLite store. Each run
 * uses a client id of its own, so no run finds another's draft or submission.
 */

const CASES = resolve(__dirname, '../../resources/cases');

/** One sample case per lab form. */
export const LAB_FORMS: Readonly<Record<PortalId, string>> = {
  shops: 'shops-renewal-anand-bakery.json',
  power: 'power-name-change-deshpande.json',
  tax: 'tax-return-deccan-software-aug-2026.json',
};

export interface LabFormEnv {
  lab: Lab;
  browser: Browser;
  store: Store;
}

export interface FormRun {
  portal: PortalId;
  runId: string;
  status: RunStatus;
  reason: string;
  steps: number;
  /** The lab recorded exactly one submission for the run's client. */
  submitted: boolean;
  ms: number;
  /** Where the time went, from the recorded steps: the observer's reads, and the actions with their settle waits. */
  readMs: number;
  actions: number;
  actionMs: number;
  /** Of actionMs, the executor's settle waits (quiet DOM window, navigation load), as its outcomes report them. */
  settleMs: number;
}

const approveAtOnce: ApprovalGate = { request: async () => ({ decision: 'approve', by: 'bench clerk' }) };
const answerNothing: InputSource = { ask: async () => null };
let runSeq = 0;

export async function runLabForm(env: LabFormEnv, portal: PortalId): Promise<FormRun> {
  return runLabCase(env, labCase(env.lab, portal));
}

/** The portal's sample case under a client id (and case id) of its own, that client's variant reset in the lab. */
export function labCase(lab: Lab, portal: PortalId): CaseFile {
  const base = loadCaseFile(join(CASES, LAB_FORMS[portal]));
  const tag = `bench-${process.pid}-${++runSeq}`;
  const caseFile = { ...base, caseId: `${base.caseId}-${tag}`, clientId: `${base.clientId}-${tag}` };
  lab.configure(caseFile.clientId, {});
  return caseFile;
}

/** One lab case run to its end as `runLabForm` runs it (`onStart`: the run's id as soon as it has one). */
export async function runLabCase(env: LabFormEnv, caseFile: CaseFile, onStart?: (runId: string) => void): Promise<FormRun> {
  const portal = caseFile.portal as PortalId;
  const started = performance.now();
  const finished = await executeRun(
    { store: env.store, browser: env.browser, approvals: approveAtOnce, inputs: answerNothing, credentials: new LabCredentials() },
    { caseFile, profile: bindLabProfile(loadPortalProfile(caseFile.portal), env.lab.port, env.lab.scheme), planner: 'rules', approveMode: 'all', ...(onStart ? { onStart } : {}) },
  );
  const ms = performance.now() - started;
  const submitted = env.lab.submissions({ clientId: caseFile.clientId }).length === 1;
  const steps = await env.store.listSteps(finished.runId);
  const actions = steps.flatMap((s) => s.actions);
  return {
    portal,
    runId: finished.runId,
    status: finished.status,
    reason: finished.reason,
    steps: finished.steps,
    submitted,
    ms,
    readMs: steps.reduce((n, s) => n + s.observation.readMs, 0),
    actions: actions.length,
    actionMs: actions.reduce((n, a) => n + a.outcome.ms, 0),
    settleMs: actions.reduce((n, a) => n + Number(/settled in (\d+) ms/.exec(a.outcome.message ?? '')?.[1] ?? 0), 0),
  };
}

export interface LabForm {
  portal: PortalId;
  runs: FormRun[];
  ms: Spread;
  /** Every timed run ended done with exactly one submission. */
  allDone: boolean;
}

/** The same form `trials` times in a row (after `warmup` untimed runs). */
export async function measureLabForm(env: LabFormEnv, portal: PortalId, options: { warmup: number; trials: number }): Promise<LabForm> {
  for (let i = 0; i < options.warmup; i++) await runLabForm(env, portal);
  const runs: FormRun[] = [];
  for (let i = 0; i < options.trials; i++) runs.push(await runLabForm(env, portal));
  return { portal, runs, ms: spread(runs.map((r) => r.ms)), allDone: runs.every((r) => r.status === 'done' && r.submitted) };
}
