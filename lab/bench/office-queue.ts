import { availableParallelism } from 'node:os';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../src/agent/browser/chromium';
import { OfficeQueue, OfficeWorker, type CaseExecutor } from '../../src/service/office-queue';
import type { CaseFile } from '../../src/shared/case-file';
import { openPgStore, type PgStore } from '../../src/store';
import { PORTAL_IDS, type Lab } from '..';
import { cpuBetween, readCpu, type CpuUse } from './cpu-time';
import { labCase, runLabCase, type FormRun } from './lab-form';
import { startBenchPostgres, type ThrowAwayPostgres } from './postgres';
import { round, spread, type Spread } from './stats';
import type { Batch } from './throughput';

/**
 * The office queue on the bench's own PostgreSQL (pg-boss 10, the office store, desks as
 * `portal-desk worker` runs them, in this process):
 *
 * - Overhead per case, with no run at all (the case's executor returns at once): from
 *   `enqueue` to the start of the run at an idle desk (which asks the queue every `pollMs`, so
 *   half of that is expected), and, on a backlog, from one case's start to the next one's at a
 *   desk that never waits (take the job, the client's lock, the claim, the beats, the store's
 *   "done already?", complete, release). CPU per case counts this process and the PostgreSQL server.
 * - Throughput of 2 desks vs 1 on this machine: lab forms run by the rules planner through the
 *   queue, each desk with a Chromium of its own, the office store in PostgreSQL. The CPU seconds
 *   one form costs at one desk put a ceiling on what two desks can reach on this many CPUs.
 */

export interface QueueOverhead {
  /** The idle desk's poll interval (the worker's default). */
  pollMs: number;
  /** enqueue → the run's start, at an idle desk. */
  idlePickupMs: Spread;
  /** One case's start → the next one's, on a backlog. */
  backlogPerCaseMs: Spread;
  backlogCases: number;
  /** Over the backlog: this process and the PostgreSQL server. */
  cpu: CpuUse | null;
  cpuMsPerCase: number | null;
}

/** A batch through the queue, and what its runs that were not done (one submission) ended with. */
type OfficeBatch = Batch & { notDone: string[] };

export interface OfficeThroughput {
  single: OfficeBatch;
  double: OfficeBatch;
  /** double.formsPerMinute / single.formsPerMinute. */
  ratio: number;
  /** The best ratio the CPUs allow at the single desk's CPU per form (at most 2: two desks), or null without counters. */
  cpuCeiling: number | null;
}

export type OfficeBench = { skipped: string } | { postgres: string; overhead: QueueOverhead; throughput: OfficeThroughput };

export interface OfficePlan {
  idleTrials: number;
  backlogCases: number;
  singleForms: number;
  doubleForms: number;
}

const POLL_MS = 500;

export async function measureOfficeQueue(lab: Lab, plan: OfficePlan, log: (line: string) => void): Promise<OfficeBench> {
  const pg = await startBenchPostgres();
  if ('skipped' in pg) return pg;
  let queue: OfficeQueue | undefined;
  let store: PgStore | undefined;
  const browsers: Browser[] = [];
  try {
    // The desk's own folder (receipts) is the server's throw-away folder.
    store = await openPgStore(pg.url, { localFolder: pg.dir });
    queue = await OfficeQueue.open(pg.url, { supervise: true });
    log(`office queue: ${pg.version}; overhead, ${plan.idleTrials} cases at an idle desk, ${plan.backlogCases} on a backlog`);
    const overhead = await measureOverhead(pg, queue, store, lab, plan);
    for (let i = 0; i < 2; i++) browsers.push(await launchChromium({ hostResolverRules: lab.hostResolverRules }));
    log(`office queue: ${plan.singleForms} lab forms at 1 desk, ${plan.doubleForms} at 2 desks`);
    const single = await officeBatch({ pg, queue, store, lab, browsers }, plan.singleForms, 1);
    const double = await officeBatch({ pg, queue, store, lab, browsers }, plan.doubleForms, 2);
    const perForm = single.cpu && single.done ? single.cpu.seconds / single.done : 0;
    const cpuCeiling = perForm > 0 && single.formsPerMinute > 0 ? round(Math.min(2, (availableParallelism() * 60) / perForm / single.formsPerMinute)) : null;
    const ratio = single.formsPerMinute > 0 ? round(double.formsPerMinute / single.formsPerMinute) : 0;
    return { postgres: pg.version, overhead, throughput: { single, double, ratio, cpuCeiling } };
  } finally {
    for (const b of browsers) await b.close().catch(() => undefined);
    await queue?.close();
    await store?.close();
    pg.stop();
  }
}

async function measureOverhead(pg: ThrowAwayPostgres, queue: OfficeQueue, store: PgStore, lab: Lab, plan: OfficePlan): Promise<QueueOverhead> {
  /** A real case file of a client of its own, which the desk's executor does not run: only the queue's work is timed. */
  const emptyCase = (): { source: string; caseFile: CaseFile } => ({ source: 'bench', caseFile: labCase(lab, 'shops') });
  // An idle desk: one case at a time, enqueued at a different moment of its poll each time.
  const started: number[] = [];
  const execute: CaseExecutor = async (_caseFile, _resume, { onStart }) => {
    started.push(performance.now());
    onStart(`bench-queue-run-${started.length}`);
    return { runId: `bench-queue-run-${started.length}`, status: 'done', reason: 'no run: the queue is measured' };
  };
  const idle = new OfficeWorker({ queue, store, url: pg.url, execute, pollMs: POLL_MS });
  const running = idle.run();
  const pickups: number[] = [];
  try {
    await sleep(POLL_MS * 2);
    for (let i = 0; i < plan.idleTrials; i++) {
      await sleep(((i * 0.37) % 1) * POLL_MS);
      const before = started.length;
      const t0 = performance.now();
      await queue.enqueue([emptyCase()]);
      while (started.length === before) await sleep(2);
      pickups.push(started.at(-1)! - t0);
      while (idle.outcomes.length === before) await sleep(5);
    }
  } finally {
    idle.stop();
    await running;
  }

  // A backlog: every case queued before the desk starts.
  started.length = 0;
  await queue.enqueue(Array.from({ length: plan.backlogCases }, () => emptyCase()));
  const busy = new OfficeWorker({ queue, store, url: pg.url, execute, pollMs: POLL_MS, exitWhenIdleMs: 0 });
  const cpuBefore = readCpu([pg.pid]);
  await busy.run();
  const cpu = cpuBetween(cpuBefore, readCpu([pg.pid]));
  const gaps = started.slice(1).map((t, i) => t - started[i]!);
  return {
    pollMs: POLL_MS,
    idlePickupMs: spread(pickups),
    backlogPerCaseMs: spread(gaps.length ? gaps : [0]),
    backlogCases: started.length,
    cpu,
    cpuMsPerCase: cpu && started.length ? round((cpu.seconds * 1000) / started.length, 1) : null,
  };
}

interface OfficeEnv {
  pg: ThrowAwayPostgres;
  queue: OfficeQueue;
  store: PgStore;
  lab: Lab;
  browsers: Browser[];
}

/** `forms` lab forms queued, then `desks` desks (a Chromium each) take them until none is left. */
async function officeBatch(env: OfficeEnv, forms: number, desks: number): Promise<OfficeBatch> {
  await env.queue.enqueue(Array.from({ length: forms }, (_, i) => ({ source: 'bench', caseFile: labCase(env.lab, PORTAL_IDS[i % PORTAL_IDS.length]!) })));
  const runs: FormRun[] = [];
  const broke: string[] = [];
  let lastEnd = 0;
  let cpuAfter: ReturnType<typeof readCpu> = null;
  const cpuBefore = readCpu([env.pg.pid]);
  const t0 = performance.now();
  const workers = Array.from({ length: desks }, (_, d) => {
    const execute: CaseExecutor = async (caseFile, _resume, { onStart }) => {
      const run = await runLabCase({ lab: env.lab, browser: env.browsers[d]!, store: env.store }, caseFile, onStart);
      runs.push(run);
      lastEnd = performance.now();
      if (runs.length === forms) cpuAfter = readCpu([env.pg.pid]);
      return { runId: run.runId, status: run.status, reason: run.reason };
    };
    // A case that broke at a desk (an exception, not a run's end) goes back to the queue; say why in the report.
    const log = (line: string) => void (/ broke at this desk /.test(line) && broke.push(line));
    return new OfficeWorker({ queue: env.queue, store: env.store, url: env.pg.url, execute, pollMs: 200, exitWhenIdleMs: 300, log });
  });
  await Promise.all(workers.map((w) => w.run()));
  const wallMs = Math.max(1, (lastEnd || performance.now()) - t0);
  const done = runs.filter((r) => r.status === 'done' && r.submitted).length;
  const notDone = [...runs.filter((r) => r.status !== 'done' || !r.submitted).map((r) => `${r.portal} ${r.status}${r.submitted ? '' : ' (not submitted once)'}: ${r.reason}`), ...broke];
  return { concurrency: desks, forms, done, notDone, wallMs: Math.round(wallMs), formsPerMinute: round((done * 60_000) / wallMs), cpu: cpuBetween(cpuBefore, cpuAfter ?? readCpu([env.pg.pid])) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
