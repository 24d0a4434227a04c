import type { Page } from 'playwright-core';
import type { PageObserver } from '../../src/agent/observe/observer';
import { median, spread, timed, type Spread } from './stats';

/**
 * Observation build time: our observer's full read (ai snapshot + DOM-facts walk + pairing +
 * refs, `PageObserver.read`) against a bare `page.ariaSnapshot({ mode: 'ai' })` of the same page,
 * side by side in one browser. Trials are paired and alternate which call goes first, so load on
 * a shared machine hits both alike; the ratio is the median of the per-trial ratios.
 */

export interface ObserveTime {
  page: string;
  kind: 'lab' | 'synthetic';
  /** Controls the observation listed plus those the cap left out. */
  controls: number;
  observeMs: Spread;
  snapshotMs: Spread;
  /** Median of observe/snapshot over the paired trials. */
  ratio: number;
  /** Every paired ratio, for pooling across pages. */
  ratios: number[];
}

export interface ObserveTimeOptions {
  warmup: number;
  trials: number;
}

export async function measureObserveTime(page: Page, name: string, kind: ObserveTime['kind'], observer: PageObserver, options: ObserveTimeOptions): Promise<ObserveTime> {
  const observeOnce = () => observer.read(page);
  const snapshotOnce = () => page.ariaSnapshot({ mode: 'ai' });
  let controls = 0;
  for (let i = 0; i < options.warmup; i++) {
    await snapshotOnce();
    const read = await observeOnce();
    controls = read.observation.controls.length + read.observation.omittedControls;
  }
  const observed: number[] = [];
  const bare: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < options.trials; i++) {
    let o: number;
    let b: number;
    if (i % 2 === 0) {
      b = (await timed(snapshotOnce)).ms;
      o = (await timed(observeOnce)).ms;
    } else {
      const read = await timed(observeOnce);
      o = read.ms;
      controls = read.value.observation.controls.length + read.value.observation.omittedControls;
      b = (await timed(snapshotOnce)).ms;
    }
    observed.push(o);
    bare.push(b);
    ratios.push(o / b);
  }
  return { page: name, kind, controls, observeMs: spread(observed), snapshotMs: spread(bare), ratio: median(ratios), ratios };
}
