import type { BenchReport, TargetRow } from './report';
import { round, type Spread } from './stats';

/** The benchmark report as text: details per measurement, then the summary table with each target. */

const ms = (s: Spread) => `${round(s.median, 1)} ms (p10 ${round(s.p10, 1)}, p90 ${round(s.p90, 1)}, n=${s.n})`;
const pct = (x: number) => `${round(x * 100, 1)}%`;

export function reportText(r: BenchReport): string {
  const m = r.machine;
  const lines: string[] = [];
  const out = (line = '') => lines.push(line);
  out(`portal-desk bench (${r.mode}${r.mode === 'quick' ? ': one trial each, a few pages; a smoke test, not a measurement' : ''})`);
  out(`machine: ${m.nproc} CPUs (${m.cpuModel}), Node ${m.node}, Chromium ${m.chromium}, playwright-core ${m.playwrightCore}`);
  out(`load average at start ${m.loadAtStart.join(' ')}, at end ${m.loadAtEnd.join(' ')}; wall ${r.wallSeconds} s`);
  out(`tokens: ${r.tokenEstimate}`);
  out();

  out('Observation build time: observer.read vs page.ariaSnapshot({ mode: "ai" }), paired trials, same page');
  out(`  ${'page'.padEnd(42)} ${'controls'.padStart(8)} ${'observe ms'.padStart(10)} ${'snapshot ms'.padStart(11)} ${'ratio'.padStart(6)}`);
  for (const p of [...r.observeTime.pages, r.observeTime.synthetic]) {
    out(`  ${p.page.padEnd(42)} ${String(p.controls).padStart(8)} ${round(p.observeMs.median, 1).toFixed(1).padStart(10)} ${round(p.snapshotMs.median, 1).toFixed(1).padStart(11)} ${p.ratio.toFixed(2).padStart(6)}`);
  }
  out(`  lab pages pooled: ratio ${r.observeTime.labRatio.toFixed(2)}× (median of ${r.observeTime.pages.reduce((n, p) => n + p.observeMs.n, 0)} paired trials)`);
  out();

  out('Observation size: page block sent to the model vs full ai snapshot (YAML) vs raw HTML, in tokens (chars/4)');
  out(`  ${'page'.padEnd(42)} ${'obs'.padStart(6)} ${'snapshot'.padStart(8)} ${'html'.padStart(7)} ${'of snap'.padStart(8)} ${'of html'.padStart(8)} ${'kept'.padStart(9)}`);
  for (const p of [...r.observationSize.pages, r.observationSize.synthetic]) {
    out(
      `  ${p.page.padEnd(42)} ${String(p.observationTokens).padStart(6)} ${String(p.snapshotTokens).padStart(8)} ${String(p.htmlTokens).padStart(7)} ${pct(p.ofSnapshot).padStart(8)} ${pct(p.ofHtml).padStart(8)} ${`${p.kept}/${p.labelled}`.padStart(9)}`,
    );
    if (p.missing.length && p.kind === 'lab') out(`      not kept: ${p.missing.join(', ')}`);
  }
  const l = r.observationSize.lab;
  out(`  lab pages: ${pct(l.ofSnapshot)} of the ai snapshot (worst ${pct(l.worstOfSnapshot)}, ${l.worstPage}), ${pct(l.ofHtml)} of the HTML; in BPE-like pieces ${pct(l.ofSnapshotPieces)} and ${pct(l.ofHtmlPieces)}`);
  const syn = r.observationSize.synthetic;
  out(`  synthetic page: the observation lists ${syn.listed} controls (the cap) and tells the model ${syn.omitted} more were left out`);
  out();

  out(`Stale ref → unknown_ref (${r.staleRef.page})`);
  out(`  ref from an older read:       ${ms(r.staleRef.olderReadMs)}`);
  out(`  element re-rendered since:    ${ms(r.staleRef.reRenderedMs)}`);
  out();

  const w = r.storeWrite;
  out(`Store: ${w.steps} steps written to a real SQLite file (WAL, synchronous=FULL), ~${Math.round(w.stepJsonBytes / 1024)} KB step JSON + ~${Math.round(w.screenshotBytes / 1024)} KB PNG each, ${round(w.databaseBytes / 1048576, 1)} MB on disk`);
  out(`  recordStep per step:          ${ms(w.perStepMs)}`);
  out(`  loadReplay (${r.replayLoad.steps} steps, chain ${r.replayLoad.chainOk ? 'verified' : 'BROKEN'}): ${ms(r.replayLoad.loadReplayMs)}`);
  out(`  listSteps:                    ${ms(r.replayLoad.listStepsMs)}`);
  out();

  out(`Lab form end to end, rules planner (${r.labForm.portal})`);
  const s1 = (x: number) => `${(x / 1000).toFixed(2)} s`;
  for (const run of r.labForm.runs) {
    out(
      `  ${run.status.padEnd(7)} ${String(run.steps).padStart(3)} steps ${s1(run.ms).padStart(8)}: reads ${s1(run.readMs)}, ${run.actions} actions ${s1(run.actionMs)} (settle waits ${s1(run.settleMs)}), the rest ${s1(run.ms - run.readMs - run.actionMs)}` +
        `${run.submitted ? '' : '  (no single submission!)'}${run.status === 'done' ? '' : `  ${run.reason}`}`,
    );
  }
  out(`  median ${ms(r.labForm.ms)}`);
  out();

  out(`Lab form over https vs http (${r.tlsCost.portal}): the egress lock ends TLS, reads each request whole, verifies the portal`);
  out(`  http  median ${ms(r.tlsCost.http)}`);
  out(`  https median ${ms(r.tlsCost.https)}`);
  out(`  cost ${(r.tlsCost.cost * 100).toFixed(1)}%${r.tlsCost.allDone ? '' : '  (not every run done with one submission!)'}`);
  out();

  out('Learned routes: a lab case run twice on the same layout, the second following the route the first learned');
  for (const p of r.learnedRoute.pairs) {
    const model = p.planner === 'rules' ? '' : `; model requests ${p.firstModelCalls} → ${p.routeModelCalls}, tokens ${p.firstTokens} → ${p.routeTokens}`;
    out(`  ${p.planner.padEnd(15)} ${p.portal.padEnd(6)} first ${s1(p.firstMs).padStart(8)} (${p.firstPlannerCalls} planner calls), route ${s1(p.routeMs).padStart(8)} (${p.routePlannerCalls} planner calls): ${(p.routeMs / p.firstMs).toFixed(2)}×${model}${p.done ? '' : '  NOT DONE'}`);
  }
  out(`  median wall ratio: Claude planner (loopback) ${r.learnedRoute.wallRatio['loopback-claude'].toFixed(2)}×, rules planner ${r.learnedRoute.wallRatio.rules.toFixed(2)}× (a rules decision costs about a millisecond)`);
  out();

  const t = r.throughput;
  out('Throughput (same mix of shops, power and tax forms)');
  for (const b of [t.single, t.concurrent]) {
    const cpu = b.cpu ? `; CPU: these runs ${pct(b.cpu.ours)} of the machine (${round(b.cpu.seconds / Math.max(1, b.done), 2)} CPU-s per form), other processes ${pct(b.cpu.others)}` : '';
    out(`  ${b.concurrency} at a time: ${b.done}/${b.forms} done in ${(b.wallMs / 1000).toFixed(1)} s = ${b.formsPerMinute} forms/min${cpu}`);
  }
  out(`  ratio ${t.ratio.toFixed(2)}×${t.cpuCeiling === null ? '' : `; CPU ceiling on ${r.machine.nproc} idle CPUs at the single batch's CPU per form: ${t.cpuCeiling.toFixed(2)}×`}`);
  out();

  const o = r.office;
  if ('skipped' in o) {
    out(`Office queue: skipped (${o.skipped})`);
  } else {
    const q = o.overhead;
    out(`Office queue (pg-boss 10 on a throw-away ${o.postgres}, desks in this process; CPU counts this process tree and the PostgreSQL server)`);
    out(`  enqueue → start of the run at an idle desk (it asks every ${q.pollMs} ms): ${ms(q.idlePickupMs)}`);
    out(`  one case's start → the next one's, ${q.backlogCases} cases queued, no run: ${ms(q.backlogPerCaseMs)}${q.cpu ? `; CPU ${q.cpuMsPerCase} ms a case (${pct(q.cpu.ours)} of the machine, other processes ${pct(q.cpu.others)})` : ''}`);
    const ot = o.throughput;
    for (const b of [ot.single, ot.double]) {
      const cpu = b.cpu ? `; CPU: these runs and PostgreSQL ${pct(b.cpu.ours)} of the machine (${round(b.cpu.seconds / Math.max(1, b.done), 2)} CPU-s per form), other processes ${pct(b.cpu.others)}` : '';
      out(`  ${b.concurrency} desk${b.concurrency === 1 ? '' : 's'}: ${b.done}/${b.forms} done in ${(b.wallMs / 1000).toFixed(1)} s = ${b.formsPerMinute} forms/min${cpu}`);
      for (const why of b.notDone) out(`    not done: ${why}`);
    }
    out(`  ratio ${ot.ratio.toFixed(2)}×${ot.cpuCeiling === null ? '' : `; CPU ceiling on ${r.machine.nproc} idle CPUs at one desk's CPU per form (at most 2): ${ot.cpuCeiling.toFixed(2)}×`}`);
  }
  out();

  out(summaryTable(r.summary));
  return lines.join('\n');
}

export function summaryTable(rows: readonly TargetRow[]): string {
  const head = ['measurement', 'result', 'target', 'met'];
  const cells = rows.map((row) => [row.measurement, row.result, row.target || '—', row.met === null ? '—' : row.met ? 'yes' : 'NO']);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(width[i]!)).join(' | ')} |`;
  return ['Summary', line(head), `|${width.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
