import { z } from 'zod';
import { NotRegularFileError, readRegularFile } from '../base/regular-file';
import { RunRecord } from '../shared/run';
import { RUN_EXPORT_FORMAT, RUN_EXPORT_VERSION, RunExportFormatError, type RunExport } from '../store';
import { finalScan, type SecretGuardOptions } from './secret-scan';

/**
 * Run exports on disk: the store's `exportRun` format, written by `replay --export-json` and read
 * back by `verify FILE` and `replay FILE`.
 */

/**
 * The parts of an export the replay reads, beyond the ones `verifyExport` checks. Steps stay
 * `unknown` so a tampered step is named by verification, not refused here as a format error.
 */
const ExportFile = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  // Version 1 files (chain format 1) are still read: verify says what they cover.
  version: z.union([z.literal(1), z.literal(RUN_EXPORT_VERSION)]),
  exportedAt: z.string(),
  run: RunRecord,
  chain: z.looseObject({ definition: z.string(), genesisHash: z.string(), stepHashes: z.array(z.string()), headHash: z.string().nullable() }),
  steps: z.array(z.unknown()),
  screenshots: z.record(z.string(), z.string().nullable()),
  auditTrail: z.array(
    z.looseObject({
      seq: z.number().int(),
      runId: z.string(),
      at: z.string(),
      type: z.string(),
    }),
  ),
});

/** Largest export read (screenshots make exports big, but not this big). */
const MAX_EXPORT_BYTES = 512 * 1024 * 1024;

/**
 * Reads and shape-checks an export file. Throws RunExportFormatError when it is not one: also when
 * the path is not a regular file (a link, a FIFO, a device, a folder) or is larger than any export.
 * The file is read through the one descriptor that was checked (`readRegularFile`): a path swapped
 * for a link or a FIFO after a check is never read or waited on.
 */
export function readRunExportFile(path: string): RunExport {
  let text: string;
  try {
    text = readRegularFile(path, 'run export', MAX_EXPORT_BYTES);
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new RunExportFormatError(err.message);
    throw err;
  }
  if (text.startsWith('SQLite format 3')) {
    throw new RunExportFormatError(`${path} is a run store (SQLite), not an export: give the run id and the store, as in "RUN_ID --db ${path}"`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RunExportFormatError(`${path} is not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = ExportFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunExportFormatError(`${path} is not a Portal Desk run export: ${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'invalid'}`);
  }
  // Steps are kept as parsed, without the schema: the chain hashes exactly what the file holds.
  return parsed.data as unknown as RunExport;
}

/** The export as the file `replay --export-json` writes (final secret scan included). */
export function runExportText(exp: RunExport, options: SecretGuardOptions = {}): string {
  return finalScan(`${JSON.stringify(exp, null, 1)}\n`, options, 'the run export');
}
