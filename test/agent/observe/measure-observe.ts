/**
 * Measures the observer against a bare `page.ariaSnapshot({ mode: 'ai' })` on a 300-control page,
 * the latency of an unknown_ref answer, and the executor's settle time.
 *
 *   npx tsx test/agent/observe/measure-observe.ts [rounds]
 *
 * Runs are interleaved (bare, observe, bare, observe...) so machine load hits both alike. Besides
 * wall time it reports CPU time (the renderer main thread's clock + this Node process), which a
 * shared, overloaded machine distorts far less than wall time.
 */
import type { CDPSession, Page } from 'playwright-core';
import { executeAction } from '../../../src/agent/act/executor';
import { PageObserver } from '../../../src/agent/observe/observer';
import { FixtureBrowser, startFixtureServer } from './fixture-server';

const rounds = Number(process.argv[2] ?? 40);

function stats(samples: number[]): { median: number; p10: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
}
const fmt = (s: { median: number; p10: number; p90: number }) => `median ${s.median.toFixed(1)} ms (p10 ${s.p10.toFixed(1)}, p90 ${s.p90.toFixed(1)})`;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface CpuSample {
  /** CPU time of the page's renderer main thread (where the snapshot and the DOM walk run). */
  renderer: number;
  /** CPU time of this Node process (playwright's client and server, the observer's own work). */
  node: number;
}

/** CPU milliseconds `fn` costs, from the renderer's thread clock (Performance.getMetrics with threadTicks) and process.cpuUsage. */
async function cpu(session: CDPSession, fn: () => Promise<unknown>): Promise<CpuSample> {
  const threadTime = async () => {
    const { metrics } = (await session.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    return (metrics.find((m) => m.name === 'ThreadTime')?.value ?? 0) * 1000;
  };
  const before = await threadTime();
  const node = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(node);
  return { renderer: (await threadTime()) - before, node: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const browser = new FixtureBrowser();
  await browser.start();
  const observer = new PageObserver();
  try {
    const page: Page = await browser.page();
    // 225 rows of the generator = 300 controls.
    await page.goto(server.url('big-form.html?n=225'));
    const first = await observer.read(page);
    console.log(`page: ${first.observation.controls.length + first.observation.omittedControls} controls (${first.observation.controls.length} kept)`);

    for (let i = 0; i < 5; i++) {
      await page.ariaSnapshot({ mode: 'ai' });
      await observer.read(page);
    }
    const bare: number[] = [];
    const json: number[] = [];
    const observed: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const b = await time(() => page.ariaSnapshot({ mode: 'ai' }));
      const o = await time(() => observer.read(page));
      json.push(await time(() => page.ariaSnapshotJSON({ mode: 'ai' })));
      bare.push(b);
      observed.push(o);
      ratios.push(o / b);
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    console.log(`wall  bare ariaSnapshot(ai):     ${fmt(stats(bare))}`);
    console.log(`wall  bare ariaSnapshotJSON(ai): ${fmt(stats(json))}`);
    console.log(`wall  observer.read:             ${fmt(stats(observed))}`);
    console.log(`wall  ratio observe/bare: median of paired ratios ${stats(ratios).median.toFixed(2)}, ratio of totals ${(sum(observed) / sum(bare)).toFixed(2)}`);

    const session = await page.context().newCDPSession(page);
    await session.send('Performance.enable', { timeDomain: 'threadTicks' } as never);
    const empty: CpuSample[] = [];
    const cpuBare: CpuSample[] = [];
    const cpuObserved: CpuSample[] = [];
    for (let i = 0; i < rounds; i++) {
      empty.push(await cpu(session, async () => undefined));
      cpuBare.push(await cpu(session, () => page.ariaSnapshot({ mode: 'ai' })));
      cpuObserved.push(await cpu(session, () => observer.read(page)));
    }
    const base = stats(empty.map((c) => c.renderer)).median;
    const total = (c: CpuSample) => c.renderer - base + c.node;
    const line = (label: string, xs: CpuSample[]) =>
      `cpu   ${label} renderer ${stats(xs.map((c) => c.renderer - base)).median.toFixed(1)} + node ${stats(xs.map((c) => c.node)).median.toFixed(1)} = ${fmt(stats(xs.map(total)))}`;
    console.log(line('bare ariaSnapshot(ai):', cpuBare));
    console.log(line('observer.read:        ', cpuObserved));
    console.log(
      `cpu   ratio observe/bare: ratio of medians ${(stats(cpuObserved.map(total)).median / stats(cpuBare.map(total)).median).toFixed(2)}, ratio of totals ${(sum(cpuObserved.map(total)) / sum(cpuBare.map(total))).toFixed(2)}`,
    );

    // unknown_ref after a re-render.
    const rerender = await browser.page();
    await rerender.goto(server.url('rerender.html'));
    const unknown: number[] = [];
    for (let i = 0; i < Math.min(rounds, 30); i++) {
      const read = await observer.read(rerender);
      const button = read.observation.controls.find((c) => c.name === 'Continue')!;
      await rerender.evaluate(() => (window as unknown as { rerender(): void }).rerender());
      const outcome = await executeAction(rerender, read, { type: 'click', ref: button.ref });
      if (outcome.status !== 'unknown_ref') throw new Error(`expected unknown_ref, got ${outcome.status}`);
      unknown.push(outcome.ms);
    }
    console.log(`unknown_ref (re-rendered button): ${fmt(stats(unknown))}; clicks in page: ${await rerender.evaluate(() => (window as unknown as { clickCount: number }).clickCount)}`);

    // Settle: fill and a no-op click on a static page, a link to a new page.
    const actions = await browser.page();
    const fills: number[] = [];
    const clicks: number[] = [];
    const navigations: number[] = [];
    for (let i = 0; i < Math.min(rounds, 15); i++) {
      await actions.goto(server.url('actions.html'));
      let read = await observer.read(actions);
      const name = read.observation.controls.find((c) => c.name === 'Full name');
      if (!name) throw new Error(`no "Full name" on ${read.observation.url}: ${read.observation.controls.map((c) => c.label).join(', ')}`);
      const terms = read.observation.controls.find((c) => c.name === 'I accept the terms')!;
      fills.push((await executeAction(actions, read, { type: 'fill', ref: name.ref, field: 'n' }, `Asha ${i}`)).ms);
      clicks.push((await executeAction(actions, read, { type: 'check', ref: terms.ref, checked: true })).ms);
      read = await observer.read(actions);
      const link = read.observation.controls.find((c) => c.name === 'Go to the next page')!;
      navigations.push((await executeAction(actions, read, { type: 'click', ref: link.ref })).ms);
    }
    console.log(`fill incl. settle:             ${fmt(stats(fills))}`);
    console.log(`check incl. settle:            ${fmt(stats(clicks))}`);
    console.log(`link click + load incl. settle: ${fmt(stats(navigations))}`);
  } finally {
    await browser.stop();
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
