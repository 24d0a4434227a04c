import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../lab/bench/report';
import { runCli } from '../support/cli';
import { postgresBin } from '../support/postgres';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * `portal-desk bench --quick --json` as a real process: the report's shape and sanity only.
 * Timings are never asserted (the machine is shared); the numbers must merely exist, be positive
 * and come from real pages and real runs.
 *
 * The whole quick bench (about 17 form runs, an office queue on its own PostgreSQL: 4½ minutes on
 * a quiet 2-core machine, 9 with a retry) runs in `npm run test:full` only: the bench measures,
 * it guarantees nothing, and each thing it runs is checked on every commit by its own file (the
 * observer, the store and replay, learned routes, the office queue, the https lab). Per commit:
 * its options and help, below.
 */

const positive = (x: unknown) => expect(typeof x === 'number' && Number.isFinite(x) && x > 0, `${String(x)} is a positive number`).toBe(true);
const spreadOk = (s: { median: number; p10: number; p90: number; n: number }) => {
  positive(s.median);
  expect(s.p10).toBeLessThanOrEqual(s.median);
  expect(s.p90).toBeGreaterThanOrEqual(s.median);
  expect(s.n).toBeGreaterThanOrEqual(1);
};

describe('portal-desk bench --quick --json', () => {
  it.runIf(FULL_SWEEPS)('prints every measurement, with positive numbers from the lab pages, the synthetic page, the store and real runs', async () => {
    const r = await runCli(['bench', '--quick', '--json'], { timeoutMs: 540_000 });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as BenchReport;
    expect(report.mode).toBe('quick');

    expect(report.machine.nproc).toBeGreaterThanOrEqual(1);
    expect(report.machine.node).toBe(process.version);
    expect(report.machine.chromium).toMatch(/^\d+\./);
    expect(report.machine.loadAtStart).toHaveLength(3);
    positive(report.wallSeconds);
    expect(report.tokenEstimate).toMatch(/characters \/ 4/);

    // Observation build time: one row per lab form page (each portal, both layouts) and the synthetic page.
    const o = report.observeTime;
    expect(o.pages.map((p) => p.page)).toEqual([
      'shops/original/establishment',
      'power/original/connection',
      'tax/original/employer',
      'shops/redesigned/owner-and-establishment',
      'power/redesigned/new-holder',
      'tax/redesigned/return',
      'permits/widgets/applicant',
    ]);
    for (const p of [...o.pages, o.synthetic]) {
      spreadOk(p.observeMs);
      spreadOk(p.snapshotMs);
      positive(p.ratio);
      expect(p.controls).toBeGreaterThanOrEqual(5);
    }
    expect(o.synthetic.controls).toBe(300);
    positive(o.labRatio);

    // Observation size: tokens from real pages; every labelled control counted, the share computed from them.
    const s = report.observationSize;
    expect(s.pages).toHaveLength(7);
    for (const p of [...s.pages, s.synthetic]) {
      positive(p.observationTokens);
      expect(p.snapshotTokens).toBeGreaterThan(p.observationTokens / 10);
      positive(p.htmlTokens);
      positive(p.observationPieces);
      expect(p.ofSnapshot).toBeCloseTo(p.observationTokens / p.snapshotTokens, 2);
      expect(p.kept).toBeLessThanOrEqual(p.labelled);
      expect(p.listed).toBeGreaterThan(0);
    }
    for (const p of s.pages) expect(p.labelled, p.page).toBeGreaterThanOrEqual(8);
    expect(s.lab.labelled).toBe(s.pages.reduce((n, p) => n + p.labelled, 0));
    expect(s.lab.keptShare).toBeCloseTo(s.lab.kept / s.lab.labelled, 3);
    // The synthetic page is over the observer's cap: the rest is counted, not dropped silently.
    expect(s.synthetic.listed + s.synthetic.omitted).toBe(300);
    expect(s.synthetic.labelled).toBeGreaterThan(s.synthetic.listed);

    // Stale refs: both kinds answered unknown_ref (the bench throws otherwise) and were timed.
    expect(report.staleRef.olderReadMs.n).toBe(1);
    spreadOk(report.staleRef.olderReadMs);
    spreadOk(report.staleRef.reRenderedMs);

    // Store: a real run written and replayed with its chain intact.
    expect(report.storeWrite.steps).toBe(30);
    spreadOk(report.storeWrite.perStepMs);
    positive(report.storeWrite.databaseBytes);
    expect(report.storeWrite.screenshotBytes).toBeGreaterThan(1000);
    expect(report.replayLoad).toMatchObject({ steps: 30, chainOk: true });
    spreadOk(report.replayLoad.loadReplayMs);
    spreadOk(report.replayLoad.listStepsMs);

    // Real runs: the lab form ended done with one submission; both throughput batches finished their forms.
    expect(report.labForm.runs).toHaveLength(1);
    expect(report.labForm.runs[0]).toMatchObject({ portal: 'shops', status: 'done', submitted: true });
    expect(report.labForm.allDone).toBe(true);
    spreadOk(report.labForm.ms);
    // TLS termination at the egress lock: the same form over https and http, both done.
    expect(report.tlsCost.runs.map((x: { scheme: string }) => x.scheme)).toEqual(['http', 'https']);
    expect(report.tlsCost.allDone).toBe(true);
    expect(typeof report.tlsCost.cost).toBe('number');
    expect(report.throughput.single).toMatchObject({ concurrency: 1, forms: 1, done: 1 });
    expect(report.throughput.concurrent).toMatchObject({ concurrency: 2, forms: 2, done: 2 });
    positive(report.throughput.single.formsPerMinute);
    for (const b of [report.throughput.single, report.throughput.concurrent]) {
      if (b.cpu) {
        positive(b.cpu.seconds);
        expect(b.cpu.ours + b.cpu.others).toBeLessThanOrEqual(1.001);
      }
    }
    const run = report.labForm.runs[0]!;
    positive(run.readMs);
    expect(run.actions).toBeGreaterThan(10);
    expect(run.settleMs).toBeLessThanOrEqual(run.actionMs);
    expect(run.readMs + run.actionMs).toBeLessThan(run.ms);
    positive(report.throughput.ratio);
    // Learned routes, each planner: the second run of the pair followed the route the first learned,
    // without the planner; on the Claude path (loopback Messages API) without a request or a token.
    expect(report.learnedRoute.pairs.map((p) => p.planner)).toEqual(['rules', 'loopback-claude']);
    for (const pair of report.learnedRoute.pairs) {
      expect(pair).toMatchObject({ portal: 'shops', done: true, routePlannerCalls: 0, routeModelCalls: 0, routeTokens: 0 });
      expect(pair.firstPlannerCalls).toBeGreaterThan(4);
    }
    const claude = report.learnedRoute.pairs[1]!;
    expect(claude.firstModelCalls).toBe(claude.firstPlannerCalls);
    expect(claude.firstTokens).toBeGreaterThan(10_000);
    positive(report.learnedRoute.wallRatio.rules);
    positive(report.learnedRoute.wallRatio['loopback-claude']);

    // The office queue on the bench's own PostgreSQL: cases really went through pg-boss and the
    // office store (the lab forms were submitted once each); without PostgreSQL the rows say why not.
    const office = report.office;
    if (postgresBin()) {
      if ('skipped' in office) throw new Error(`office rows skipped with PostgreSQL installed: ${office.skipped}`);
      expect(office.postgres).toMatch(/PostgreSQL/);
      spreadOk(office.overhead.idlePickupMs);
      expect(office.overhead.idlePickupMs.n).toBe(1 * 3);
      expect(office.overhead.backlogCases).toBe(5);
      expect(office.overhead.backlogPerCaseMs.n).toBe(4);
      spreadOk(office.overhead.backlogPerCaseMs);
      expect(office.throughput.single, office.throughput.single.notDone.join('\n')).toMatchObject({ concurrency: 1, forms: 1, done: 1 });
      expect(office.throughput.double, office.throughput.double.notDone.join('\n')).toMatchObject({ concurrency: 2, forms: 2, done: 2 });
      positive(office.throughput.ratio);
      for (const b of [office.throughput.single, office.throughput.double]) if (b.cpu) positive(b.cpu.seconds);
      expect(report.summary.find((row) => row.measurement.startsWith('office queue throughput'))?.result).toMatch(/^\d+\.\d\d× \(/);
    } else {
      expect(office).toMatchObject({ skipped: expect.stringMatching(/no PostgreSQL binaries/) });
      expect(report.summary.filter((row) => row.measurement.startsWith('office queue')).map((row) => row.result)).toEqual([expect.stringMatching(/^skipped: /), expect.stringMatching(/^skipped: /)]);
    }

    // The summary: every target judged (yes or no), the rest reported without one.
    const judged = report.summary.filter((row) => row.target !== '');
    expect(judged.map((row) => row.target)).toEqual(['≤ 1.15×', '≤ 1.15×', '≤ 40%', '100%', '≤ 20 ms', '≤ 5 s', '≤ 10%', '0 calls, < 1.00×', '≥ 1.6×', '≤ 1.5×']);
    for (const row of judged) expect(typeof row.met).toBe('boolean');
    for (const row of report.summary.filter((x) => x.target === '')) expect(row.met).toBeNull();
    expect(report.summary.map((row) => row.measurement).join('\n')).toMatch(/store write per step[\s\S]*replay load, 30-step run/);
  }, 600_000);

  it('--help names the options and says the exit code does not depend on the targets', async () => {
    const r = await runCli(['bench', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--quick/);
    expect(r.stdout).toMatch(/--json/);
    expect(r.stdout).toMatch(/whether or not the targets were met/);
  });
});
