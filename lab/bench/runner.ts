import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../../src/agent/browser/chromium';
import { measureTlsCost } from './tls-cost';
import { PageObserver } from '../../src/agent/observe/observer';
import { startLab } from '..';
import { openStore } from '../../src/store';
import { measureCliStart } from './cli-start';
import { labPages } from './lab-pages';
import { measureLabForm } from './lab-form';
import { measureLearnedRoute } from './learned-route';
import { describeMachine, load } from './machine';
import { measureObservationSize } from './observation-size';
import { measureObserveTime, type ObserveTime } from './observe-time';
import type { PageSample } from './recorded-step';
import { measureReplayLoad } from './replay-load';
import { summariseObservationSize, summariseObserveTime, targetRows, type BenchReport } from './report';
import { measureStaleRef } from './stale-ref';
import { measureStoreWrite } from './store-write';
import { openSyntheticPage } from './synthetic-page';
import { measureThroughput } from './throughput';
import { measureOfficeQueue, type OfficePlan } from './office-queue';
import type { ObservationSize } from './observation-size';

/**
 * Runs every measurement in one process against one lab and one Chromium, in this order: the
 * observer on the lab pages and the synthetic page (time, size, stale refs), the store (1,000
 * steps built from the lab pages just read, then their replay), a lab form end to end, the
 * 1-vs-N throughput, and the office queue on a throw-away PostgreSQL of its own (overhead per case,
 * 2 desks vs 1; skipped, saying why, without PostgreSQL binaries). Medians over repeated trials after warm-up; `quick` runs one trial of each
 * on fewer pages, to check the bench itself works (its numbers are not measurements).
 */

export interface BenchOptions {
  quick?: boolean;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

interface Plan {
  labObserve: { warmup: number; trials: number };
  syntheticObserve: { warmup: number; trials: number };
  staleRef: { warmup: number; trials: number };
  replaySteps: number;
  replay: { warmup: number; trials: number };
  labForm: { warmup: number; trials: number };
  tlsCost: { warmup: number; trials: number };
  learnedRoute: { portals: Array<'shops' | 'power' | 'tax'>; pairs: number };
  throughput: { singleForms: number; concurrentForms: number; concurrency: number };
  cliStart: { trials: number; starts: number };
  office: OfficePlan;
}

const FULL: Plan = {
  labObserve: { warmup: 2, trials: 7 },
  syntheticObserve: { warmup: 3, trials: 15 },
  staleRef: { warmup: 2, trials: 15 },
  replaySteps: 1000,
  replay: { warmup: 1, trials: 5 },
  labForm: { warmup: 1, trials: 5 },
  tlsCost: { warmup: 1, trials: 3 },
  learnedRoute: { portals: ['shops', 'power', 'tax'], pairs: 1 },
  throughput: { singleForms: 3, concurrentForms: 12, concurrency: 4 },
  cliStart: { trials: 5, starts: 10 },
  office: { idleTrials: 15, backlogCases: 40, singleForms: 3, doubleForms: 6 },
};

const QUICK: Plan = {
  labObserve: { warmup: 1, trials: 1 },
  syntheticObserve: { warmup: 1, trials: 1 },
  staleRef: { warmup: 0, trials: 1 },
  replaySteps: 30,
  replay: { warmup: 0, trials: 1 },
  labForm: { warmup: 0, trials: 1 },
  tlsCost: { warmup: 0, trials: 1 },
  learnedRoute: { portals: ['shops'], pairs: 1 },
  throughput: { singleForms: 1, concurrentForms: 2, concurrency: 2 },
  cliStart: { trials: 1, starts: 2 },
  office: { idleTrials: 3, backlogCases: 5, singleForms: 1, doubleForms: 2 },
};

export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const quick = options.quick ?? false;
  const plan = quick ? QUICK : FULL;
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const loadAtStart = load();
  // First, before the lab and Chromium start: process start-up is what is measured.
  log('cli start-up: portal-desk --help vs node -e 0');
  const cliStart = measureCliStart(plan.cliStart);
  const dir = mkdtempSync(join(tmpdir(), 'pd-bench-'));
  const lab = await startLab();
  const browser = await launchChromium({ hostResolverRules: lab.hostResolverRules });
  const observer = new PageObserver();
  try {
    const labTimes: ObserveTime[] = [];
    const labSizes: ObservationSize[] = [];
    const samples: PageSample[] = [];
    for await (const target of labPages(lab, browser, { quick })) {
      log(`observe: ${target.name}`);
      labTimes.push(await measureObserveTime(target.page, target.name, 'lab', observer, plan.labObserve));
      const sized = await measureObservationSize(target.page, target.name, 'lab', observer);
      labSizes.push(sized.size);
      samples.push({ observation: sized.observation, screenshot: await target.page.screenshot({ type: 'png' }) });
    }

    log('observe: synthetic page');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await openSyntheticPage(page);
    const syntheticTime = await measureObserveTime(page, 'synthetic-300', 'synthetic', observer, plan.syntheticObserve);
    const syntheticSize = (await measureObservationSize(page, 'synthetic-300', 'synthetic', observer)).size;
    log('stale refs: synthetic page');
    const staleRef = await measureStaleRef(page, 'synthetic-300', observer, plan.staleRef);
    await context.close();

    log(`store: writing a ${plan.replaySteps}-step run`);
    const replayDb = join(dir, 'replay.sqlite');
    const storeWrite = await measureStoreWrite(replayDb, 'run-bench-replay', plan.replaySteps, samples);
    log('store: loading its replay');
    const replayLoad = await measureReplayLoad(replayDb, 'run-bench-replay', plan.replay);

    const store = openStore(join(dir, 'runs.sqlite'));
    try {
      const env = { lab, browser, store };
      log('lab form: shops, end to end');
      const labForm = await measureLabForm(env, 'shops', plan.labForm);
      log('lab form over https: TLS termination at the egress lock, against the same form over http');
      const tlsCost = await measureTlsCost(env, 'shops', plan.tlsCost);
      log(`learned routes: ${plan.learnedRoute.portals.join(', ')}, a first run and a route run each`);
      const learnedRoute = await measureLearnedRoute({ ...env, dir }, plan.learnedRoute.portals, plan.learnedRoute.pairs);
      log(`throughput: ${plan.throughput.singleForms} forms one at a time, ${plan.throughput.concurrentForms} forms ${plan.throughput.concurrency} at a time`);
      const throughput = await measureThroughput(env, plan.throughput);
      log('office queue: a throw-away PostgreSQL');
      const office = await measureOfficeQueue(lab, plan.office, log);

      const measured = {
        observeTime: summariseObserveTime(labTimes, syntheticTime),
        observationSize: summariseObservationSize(labSizes, syntheticSize),
        staleRef,
        storeWrite,
        replayLoad,
        labForm,
        tlsCost,
        learnedRoute,
        throughput,
        office,
        cliStart,
      };
      return {
        mode: quick ? 'quick' : 'full',
        machine: describeMachine(browser, loadAtStart),
        wallSeconds: Math.round((performance.now() - started) / 1000),
        tokenEstimate: 'characters / 4, rounded up (the Anthropic planner\'s own budget rule); BPE-like pieces (letter runs, digit triples, single symbols) as a cross-check',
        ...measured,
        summary: targetRows(measured),
      };
    } finally {
      store.close();
    }
  } finally {
    await browser.close().catch(() => undefined);
    await lab.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
