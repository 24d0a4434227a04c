import type { Page } from 'playwright-core';
import { executeAction } from '../../src/agent/act/executor';
import type { LivePageRead, PageObserver } from '../../src/agent/observe/observer';
import type { Control } from '../../src/shared/observation';
import { spread, timed, type Spread } from './stats';

/**
 * Stale-ref detection: how long the executor takes to answer `unknown_ref` for a click whose
 * ref can no longer be trusted, so the loop observes again instead of acting on the wrong element.
 *
 * - `olderRead`: the ref comes from a read the page has since been read again after (the model
 *   answered about a page it no longer sees). Decided in Node, no browser round trip.
 * - `reRendered`: the ref is from the latest read, but its element was replaced by an identical
 *   copy after the read (a framework re-render). Decided by one `count()` round trip on the ref.
 *
 * The click is real: were the ref not caught, the button would be pressed and the trial fails.
 */

export interface StaleRef {
  page: string;
  olderReadMs: Spread;
  reRenderedMs: Spread;
}

export async function measureStaleRef(page: Page, name: string, observer: PageObserver, options: { warmup: number; trials: number }): Promise<StaleRef> {
  const older: number[] = [];
  const reRendered: number[] = [];
  for (let i = 0; i < options.warmup + options.trials; i++) {
    const first = await observer.read(page);
    const button = firstButton(first);
    await observer.read(page);
    const a = await timed(() => executeAction(page, first, { type: 'click', ref: button.ref }));
    expectUnknown(a.value.status, 'a ref from an older read', name);

    const latest = await observer.read(page);
    const target = firstButton(latest);
    const element = await latest.resolve(target.ref);
    if (!element) throw new Error(`${name}: ${target.label} did not resolve right after the read`);
    await element.evaluate((el) => el.replaceWith(el.cloneNode(true)));
    const b = await timed(() => executeAction(page, latest, { type: 'click', ref: target.ref }));
    expectUnknown(b.value.status, 'a ref whose element was re-rendered', name);
    if (i >= options.warmup) {
      older.push(a.ms);
      reRendered.push(b.ms);
    }
  }
  return { page: name, olderReadMs: spread(older), reRenderedMs: spread(reRendered) };
}

function firstButton(read: LivePageRead): Control {
  const button = read.observation.controls.find((c) => c.role === 'button' && !c.disabled && !c.gated);
  if (!button) throw new Error(`no button on ${read.observation.url} to measure stale refs with`);
  return button;
}

function expectUnknown(status: string, what: string, name: string): void {
  if (status !== 'unknown_ref') throw new Error(`${name}: clicking ${what} answered "${status}", not unknown_ref`);
}
