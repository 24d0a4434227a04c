/** Audit trail and replay: the public surface for the console and the CLI. */
export { describeAction } from './describe-action';
export { writeOwnerOnly } from '../base/owner-only-file';
export { readRunExportFile, runExportText } from './export-file';
export { html } from './html';
export { evidenceFromExport, loadReplay, loadRunEvidence, RunNotFoundError, type RunEvidence } from './load-replay';
export * from './replay';
export { renderReportHtml, REPORT_CSP } from './report-html';
export { formatBytes, parseAge, planPurge } from './retention';
export { buildRunReport, replayJson, saveRunReport } from './run-report';
export { looksLikeExportFile } from './open-store';
export { assertNoSecrets, finalScan, SecretInReportError } from './secret-scan';
export { keepTrace, traceKeeperIn } from './trace-file';
export { checkKeptFiles } from './kept-files';
export { appendHead, checkHeadLogChain, checkHeads, HEAD_LOG_START, headLink, HeadLogError, parseHeadLog, readHeadLog, type HeadLogEntry } from './head-log';
