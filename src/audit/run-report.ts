import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store';
import { writeOwnerOnly } from '../base/owner-only-file';
import { loadRunEvidence, type ReplayOptions } from './load-replay';
import type { Replay } from './replay';
import { renderReportHtml, reportFileName } from './report-html';
import { finalScan, type SecretGuardOptions } from './secret-scan';

interface RunReport {
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

interface SavedReport {
  /** Where the report was written (owner-only, 0600). */
  path: string;
  fileName: string;
  bytes: number;
}

/**
 * The console's "Export report": the report written by the console's own process into `folder`
 * (created owner-only, 0700, when missing), the file owner-only (0600) and atomically; the clerk is told where.
 * A browser download would land world-readable in the Downloads folder.
 */
export async function saveRunReport(store: Store, runId: string, folder: string, options: SecretGuardOptions & ReplayOptions = {}): Promise<SavedReport> {
  const report = await buildRunReport(store, runId, options);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, report.fileName);
  writeOwnerOnly(path, report.html);
  return { path, fileName: report.fileName, bytes: Buffer.byteLength(report.html) };
}
