import { PORTAL_IDS } from '../lab';
import { runLabForm, type FormRun, type LabFormEnv } from './lab-form';
import { round } from './stats';

/**
 * Throughput: lab forms finished per minute when one run goes at a time, and when `concurrency`
 * runs share the process, the browser, the lab and the store (each in its own browser context),
 * as a batch would run them. Both batches cycle through the same forms (shops, power, tax, …);
 * the concurrent one is larger, so that its runs overlap for most of its wall time.
 * A form counts when its run ended done with exactly one submission.
 */

export interface Batch {
  concurrency: number;
  forms: number;
  done: number;
  wallMs: number;
  formsPerMinute: number;
}

export interface Throughput {
  single: Batch;
  concurrent: Batch;
  /** concurrent.formsPerMinute / single.formsPerMinute. */
  ratio: number;
}

export async function measureThroughput(env: LabFormEnv, options: { singleForms: number; concurrentForms: number; concurrency: number }): Promise<Throughput> {
  const single = await batch(env, options.singleForms, 1);
  const concurrent = await batch(env, options.concurrentForms, options.concurrency);
  return { single, concurrent, ratio: round(concurrent.formsPerMinute / single.formsPerMinute) };
}

async function batch(env: LabFormEnv, forms: number, concurrency: number): Promise<Batch> {
  const queue = Array.from({ length: forms }, (_, i) => PORTAL_IDS[i % PORTAL_IDS.length]!);
  const runs: FormRun[] = [];
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let portal = queue.shift(); portal; portal = queue.shift()) runs.push(await runLabForm(env, portal));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const done = runs.filter((r) => r.status === 'done' && r.submitted).length;
  return { concurrency, forms, done, wallMs: Math.round(wallMs), formsPerMinute: round((done * 60_000) / wallMs) };
}
