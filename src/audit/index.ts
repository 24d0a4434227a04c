/** Audit trail and replay: the public surface for the console and the CLI. */
export { describeAction } from './describe-action';
export { readRunExportFile, runExportText, writeOwnerOnly } from './export-file';
export { escapeHtml, html, SafeHtml } from './html';
export { evidenceFromExport, loadReplay, loadRunEvidence, RunNotFoundError, type ReplayOptions, type RunEvidence } from './load-replay';
export * from './replay';
export { renderReportHtml, reportFileName, REPORT_CSP, type ReportOptions } from './report-html';
export { formatBytes, parseAge, planPurge, type Age, type PurgePlan } from './retention';
export { buildRunReport, replayJson, saveRunReport, type RunReport, type SavedReport } from './run-report';
export { looksLikeExportFile, openExistingStore, StoreNotFoundError } from './open-store';
export { assertNoSecrets, finalScan, SecretInReportError, type SecretGuardOptions, type SecretScan } from './secret-scan';
export { appendHead, checkHeadLogChain, checkHeads, HEAD_LOG_HEADER, HEAD_LOG_START, headLink, HeadLogError, parseHeadLog, readHeadLog, type HeadCheck, type HeadLogEntry } from './head-log';
