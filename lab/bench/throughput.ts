import { availableParallelism } from 'node:os';
import { PORTAL_IDS } from '..';
import { cpuBetween, readCpu, type CpuUse } from './cpu-time';
import { runLabForm, type FormRun, type LabFormEnv } from './lab-form';
import { round } from './stats';

/**
 * Throughput: lab forms finished per minute when one run goes at a time, and when `concurrency`
 * runs share the process, the browser, the lab and the store (each in its own browser context),
 * as a batch would run them. Both batches cycle through the same forms (shops, power, tax, …);
 * the concurrent one is larger, so that its runs overlap for most of its wall time.
 * A form counts when its run ended done with exactly one submission.
 *
 * CPU use says why a ratio is what it is: the CPU seconds one form costs in the single batch put
 * a ceiling on what any number of concurrent runs can reach on this many CPUs, and the share the
 * rest of the machine took during each batch is CPU the runs did not get.
 */

export interface Batch {
  concurrency: number;
  forms: number;
  done: number;
  wallMs: number;
  formsPerMinute: number;
  /** CPU this process tree (Node, the lab, Chromium) and the rest of the machine used; null off Linux. */
  cpu: CpuUse | null;
}

export interface Throughput {
  single: Batch;
  concurrent: Batch;
  /** concurrent.formsPerMinute / single.formsPerMinute. */
  ratio: number;
  /**
   * The best ratio this machine's CPUs allow: all of them kept busy at the single batch's CPU
   * seconds per form (null without CPU counters).
   */
  cpuCeiling: number | null;
}

export async function measureThroughput(env: LabFormEnv, options: { singleForms: number; concurrentForms: number; concurrency: number }): Promise<Throughput> {
  const single = await batch(env, options.singleForms, 1);
  const concurrent = await batch(env, options.concurrentForms, options.concurrency);
  const perForm = single.cpu && single.done ? single.cpu.seconds / single.done : 0;
  const cpuCeiling = perForm > 0 ? round((availableParallelism() * 60) / perForm / single.formsPerMinute) : null;
  return { single, concurrent, ratio: round(concurrent.formsPerMinute / single.formsPerMinute), cpuCeiling };
}

async function batch(env: LabFormEnv, forms: number, concurrency: number): Promise<Batch> {
  const queue = Array.from({ length: forms }, (_, i) => PORTAL_IDS[i % PORTAL_IDS.length]!);
  const runs: FormRun[] = [];
  const cpuBefore = readCpu();
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let portal = queue.shift(); portal; portal = queue.shift()) runs.push(await runLabForm(env, portal));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const cpu = cpuBetween(cpuBefore, readCpu());
  const done = runs.filter((r) => r.status === 'done' && r.submitted).length;
  return { concurrency, forms, done, wallMs: Math.round(wallMs), formsPerMinute: round((done * 60_000) / wallMs), cpu };
}
