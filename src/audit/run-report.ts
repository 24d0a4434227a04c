import type { Store } from '../store';
import { loadRunEvidence, type ReplayOptions } from './load-replay';
import type { Replay } from './replay';
import { renderReportHtml, reportFileName } from './report-html';
import { finalScan, type SecretGuardOptions } from './secret-scan';

export interface RunReport {
  html: string;
  fileName: string;
  replay: Replay;
}

/** The console's "export run": the report of one run from the store, secret-scanned. */
export async function buildRunReport(store: Store, runId: string, options: SecretGuardOptions & ReplayOptions = {}): Promise<RunReport> {
  const evidence = await loadRunEvidence(store, runId, options);
  const html = renderReportHtml(evidence.replay, { ...options, screenshot: (hash) => evidence.screenshots.get(hash) });
  return { html, fileName: reportFileName(evidence.replay), replay: evidence.replay };
}

/** `replay --json`: the replay as indented JSON, secret-scanned. */
export function replayJson(replay: Replay, options: SecretGuardOptions = {}): string {
  return finalScan(`${JSON.stringify(replay, null, 2)}\n`, options, 'the replay JSON');
}
