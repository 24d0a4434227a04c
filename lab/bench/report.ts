import type { CliStart } from './cli-start';
import type { Machine } from './machine';
import type { ObservationSize } from './observation-size';
import type { ObserveTime } from './observe-time';
import type { LabForm } from './lab-form';
import type { TlsCost } from './tls-cost';
import type { ReplayLoad } from './replay-load';
import type { StaleRef } from './stale-ref';
import { median, round, spread, type Spread } from './stats';
import type { StoreWrite } from './store-write';
import type { Throughput } from './throughput';
import type { LearnedRouteBench } from './learned-route';
import type { OfficeBench } from './office-queue';

/** The benchmark's report: what `portal-desk bench` prints, and `--json` prints as JSON. */

export const TARGETS = {
  observeRatio: 1.15,
  tokensOfSnapshot: 0.4,
  staleRefMs: 20,
  labFormMs: 5_000,
  tlsCost: 0.1,
  throughputRatio: 1.6,
  cliStartRatio: 1.5,
} as const;

export interface ObserveTimeSummary {
  /** Pooled over every paired trial on the lab pages: median of observe/snapshot. */
  labRatio: number;
  labObserveMs: Spread;
  labSnapshotMs: Spread;
  synthetic: Omit<ObserveTime, 'ratios'>;
  pages: Omit<ObserveTime, 'ratios'>[];
}

export interface ObservationSizeSummary {
  lab: {
    pages: number;
    observationTokens: number;
    snapshotTokens: number;
    htmlTokens: number;
    /** Sum of observation tokens / sum of ai-snapshot tokens over the lab pages. */
    ofSnapshot: number;
    /** The largest per-page share. */
    worstOfSnapshot: number;
    worstPage: string;
    ofHtml: number;
    /** The same shares counted in BPE-like pieces. */
    ofSnapshotPieces: number;
    ofHtmlPieces: number;
    labelled: number;
    kept: number;
    keptShare: number;
  };
  synthetic: ObservationSize;
  pages: ObservationSize[];
}

export interface TargetRow {
  measurement: string;
  result: string;
  /** '' when the measurement has no target. */
  target: string;
  met: boolean | null;
}

export interface BenchReport {
  mode: 'full' | 'quick';
  machine: Machine;
  wallSeconds: number;
  tokenEstimate: string;
  observeTime: ObserveTimeSummary;
  observationSize: ObservationSizeSummary;
  staleRef: StaleRef;
  storeWrite: StoreWrite;
  replayLoad: ReplayLoad;
  labForm: LabForm;
  /** The lab form over https (the egress lock ending TLS) against the same form over http. */
  tlsCost: TlsCost;
  learnedRoute: LearnedRouteBench;
  throughput: Throughput;
  /** The office queue on a throw-away PostgreSQL, or why it was skipped (no PostgreSQL binaries). */
  office: OfficeBench;
  /** null where out/cli was not built or /proc is missing. */
  cliStart: CliStart | null;
  summary: TargetRow[];
}

export function summariseObserveTime(lab: readonly ObserveTime[], synthetic: ObserveTime): ObserveTimeSummary {
  const strip = ({ ratios: _ratios, ...rest }: ObserveTime) => rest;
  return {
    labRatio: round(median(lab.flatMap((p) => p.ratios))),
    labObserveMs: spread(lab.map((p) => p.observeMs.median)),
    labSnapshotMs: spread(lab.map((p) => p.snapshotMs.median)),
    synthetic: strip(synthetic),
    pages: lab.map(strip),
  };
}

export function summariseObservationSize(lab: readonly ObservationSize[], synthetic: ObservationSize): ObservationSizeSummary {
  const sum = (key: keyof ObservationSize) => lab.reduce((n, p) => n + (p[key] as number), 0);
  const worst = lab.reduce((a, b) => (b.ofSnapshot > a.ofSnapshot ? b : a));
  const labelled = sum('labelled');
  const kept = sum('kept');
  return {
    lab: {
      pages: lab.length,
      observationTokens: sum('observationTokens'),
      snapshotTokens: sum('snapshotTokens'),
      htmlTokens: sum('htmlTokens'),
      ofSnapshot: round(sum('observationTokens') / sum('snapshotTokens'), 3),
      worstOfSnapshot: worst.ofSnapshot,
      worstPage: worst.page,
      ofHtml: round(sum('observationTokens') / sum('htmlTokens'), 3),
      ofSnapshotPieces: round(sum('observationPieces') / sum('snapshotPieces'), 3),
      ofHtmlPieces: round(sum('observationPieces') / sum('htmlPieces'), 3),
      labelled,
      kept,
      keptShare: labelled ? round(kept / labelled, 4) : 0,
    },
    synthetic,
    pages: [...lab],
  };
}

const pct = (x: number) => `${round(x * 100, 1)}%`;
const ms = (x: number) => `${round(x, 1)} ms`;

export function targetRows(r: Omit<BenchReport, 'summary' | 'machine' | 'wallSeconds' | 'mode' | 'tokenEstimate'>): TargetRow[] {
  const o = r.observeTime;
  const s = r.observationSize;
  const staleMs = Math.max(r.staleRef.olderReadMs.median, r.staleRef.reRenderedMs.median);
  const t = r.throughput;
  const claudePairs = r.learnedRoute.pairs.filter((p) => p.planner === 'loopback-claude');
  return [
    {
      measurement: `observation build vs bare ai snapshot, lab pages (${o.pages.length})`,
      result: `${o.labRatio.toFixed(2)}× (${ms(o.labObserveMs.median)} vs ${ms(o.labSnapshotMs.median)})`,
      target: `≤ ${TARGETS.observeRatio}×`,
      met: o.labRatio <= TARGETS.observeRatio,
    },
    {
      measurement: `observation build vs bare ai snapshot, synthetic ${o.synthetic.controls}-control page`,
      result: `${o.synthetic.ratio.toFixed(2)}× (${ms(o.synthetic.observeMs.median)} vs ${ms(o.synthetic.snapshotMs.median)})`,
      target: `≤ ${TARGETS.observeRatio}×`,
      met: o.synthetic.ratio <= TARGETS.observeRatio,
    },
    {
      measurement: `observation tokens / full ai snapshot, lab pages (worst page ${pct(s.lab.worstOfSnapshot)})`,
      result: `${pct(s.lab.ofSnapshot)} (${s.lab.observationTokens} vs ${s.lab.snapshotTokens} tokens)`,
      target: `≤ ${pct(TARGETS.tokensOfSnapshot)}`,
      met: s.lab.ofSnapshot <= TARGETS.tokensOfSnapshot,
    },
    {
      measurement: 'labelled controls of the ai snapshot kept, lab pages',
      result: `${s.lab.kept}/${s.lab.labelled} (${pct(s.lab.keptShare)})`,
      target: '100%',
      met: s.lab.labelled > 0 && s.lab.kept === s.lab.labelled,
    },
    {
      measurement: 'observation tokens / raw HTML, lab pages',
      result: `${pct(s.lab.ofHtml)} (${s.lab.observationTokens} vs ${s.lab.htmlTokens} tokens)`,
      target: '',
      met: null,
    },
    {
      measurement: `synthetic page: tokens / ai snapshot, labelled kept (cap ${s.synthetic.listed} listed)`,
      result: `${pct(s.synthetic.ofSnapshot)}, ${s.synthetic.kept}/${s.synthetic.labelled} kept, ${s.synthetic.omitted} counted as omitted`,
      target: '',
      met: null,
    },
    {
      measurement: 'stale ref → unknown_ref (older read / re-rendered element)',
      result: `${ms(r.staleRef.olderReadMs.median)} / ${ms(r.staleRef.reRenderedMs.median)}`,
      target: `≤ ${TARGETS.staleRefMs} ms`,
      met: staleMs <= TARGETS.staleRefMs,
    },
    {
      measurement: `store write per step (WAL, synchronous=FULL; ~${Math.round(r.storeWrite.stepJsonBytes / 1024)} KB JSON + ${Math.round(r.storeWrite.screenshotBytes / 1024)} KB PNG)`,
      result: `${ms(r.storeWrite.perStepMs.median)} (p90 ${ms(r.storeWrite.perStepMs.p90)})`,
      target: '',
      met: null,
    },
    {
      measurement: `replay load, ${r.replayLoad.steps}-step run (loadReplay / listSteps)`,
      result: `${ms(r.replayLoad.loadReplayMs.median)} / ${ms(r.replayLoad.listStepsMs.median)}`,
      target: '',
      met: null,
    },
    {
      measurement: `lab form end to end, rules planner (${r.labForm.portal}, ${r.labForm.runs.length} runs${r.labForm.allDone ? '' : ', NOT ALL DONE'})`,
      result: `${round(r.labForm.ms.median / 1000, 2)} s median`,
      target: `≤ ${TARGETS.labFormMs / 1000} s`,
      met: r.labForm.allDone && r.labForm.ms.median <= TARGETS.labFormMs,
    },
    {
      measurement: `TLS termination at the egress lock: lab form over https vs http (${r.tlsCost.portal}, ${r.tlsCost.runs.length / 2} pairs${r.tlsCost.allDone ? '' : ', NOT ALL DONE'})`,
      result: `${r.tlsCost.cost >= 0 ? '+' : ''}${round(r.tlsCost.cost * 100, 1)}% (${round(r.tlsCost.https.median / 1000, 2)} s vs ${round(r.tlsCost.http.median / 1000, 2)} s median)`,
      target: `≤ ${TARGETS.tlsCost * 100}%`,
      met: r.tlsCost.allDone && r.tlsCost.cost <= TARGETS.tlsCost,
    },
    {
      measurement: `learned route: second run of a lab case, same layout, Claude planner on the loopback Messages API (${claudePairs.map((p) => p.portal).join(', ')}${r.learnedRoute.allDone ? '' : ', NOT ALL DONE'})`,
      result: `${r.learnedRoute.routePlannerCalls} planner calls, ${r.learnedRoute.routeModelCalls} model requests (first runs ${claudePairs.map((p) => p.firstModelCalls).join('/')}); wall ${r.learnedRoute.wallRatio['loopback-claude'].toFixed(2)}× of the first run (rules planner ${r.learnedRoute.wallRatio.rules.toFixed(2)}×)`,
      target: '0 calls, < 1.00×',
      met: r.learnedRoute.allDone && r.learnedRoute.routePlannerCalls === 0 && r.learnedRoute.routeModelCalls === 0 && r.learnedRoute.wallRatio['loopback-claude'] < 1,
    },
    {
      measurement: `throughput, ${t.concurrent.concurrency} concurrent vs 1 (forms/min)`,
      result: `${t.ratio.toFixed(2)}× (${t.concurrent.formsPerMinute} vs ${t.single.formsPerMinute}${t.cpuCeiling === null ? '' : `; CPU allows ≤ ${t.cpuCeiling.toFixed(2)}×`})`,
      target: `≥ ${TARGETS.throughputRatio}×`,
      met: t.single.done === t.single.forms && t.concurrent.done === t.concurrent.forms && t.ratio >= TARGETS.throughputRatio,
    },
    ...officeRows(r.office),
    {
      measurement: 'CLI start-up: `portal-desk --help` (built) vs `node -e 0`, CPU side by side',
      result: r.cliStart
        ? `${r.cliStart.ratio.toFixed(2)}× (${r.cliStart.builtSeconds} vs ${r.cliStart.nodeSeconds} CPU-s; from the sources through tsx ${r.cliStart.sourceRatio}×)`
        : 'not measured: out/cli is not built (npm run build:cli) or there is no /proc',
      target: `≤ ${TARGETS.cliStartRatio}×`,
      met: r.cliStart !== null && r.cliStart.ratio <= TARGETS.cliStartRatio,
    },
  ];
}

function officeRows(o: OfficeBench): TargetRow[] {
  if ('skipped' in o) {
    return [
      { measurement: 'office queue overhead per case (PostgreSQL, pg-boss)', result: `skipped: ${o.skipped}`, target: '', met: null },
      { measurement: 'office queue throughput, 2 desks vs 1 (forms/min)', result: `skipped: ${o.skipped}`, target: '', met: null },
    ];
  }
  const q = o.overhead;
  const t = o.throughput;
  return [
    {
      measurement: `office queue overhead per case, no run (enqueue → start at an idle desk polling every ${q.pollMs} ms; start → next start on a ${q.backlogCases}-case backlog)`,
      result: `${ms(q.idlePickupMs.median)} idle (p90 ${ms(q.idlePickupMs.p90)}); ${ms(q.backlogPerCaseMs.median)} a case on a backlog${q.cpuMsPerCase === null ? '' : `, ${q.cpuMsPerCase} CPU-ms a case with PostgreSQL`}`,
      target: '',
      met: null,
    },
    {
      measurement: `office queue throughput, 2 desks vs 1 (forms/min, lab forms through the queue and the office store)${t.single.done === t.single.forms && t.double.done === t.double.forms ? '' : ', NOT ALL DONE'}`,
      result: `${t.ratio.toFixed(2)}× (${t.double.formsPerMinute} vs ${t.single.formsPerMinute}${t.cpuCeiling === null ? '' : `; CPU allows ≤ ${t.cpuCeiling.toFixed(2)}×`})`,
      target: '',
      met: null,
    },
  ];
}
