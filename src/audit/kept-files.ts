import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../base/canonical-json';
import { TraceRecord } from '../shared/trace';

/**
 * The files a run keeps beside the store, outside the database: its receipt (`receipts/SHA256.EXT`)
 * and its Playwright trace (`traces/RUN.zip`). The chain holds each one's sha256 in the run's
 * outcome record (the report links the trace and names the receipt), so a file swapped on disk is
 * caught by hashing it again. A file that is not on this desk is said, not failed: the chain
 * still holds its hash for whoever has the file.
 */
interface KeptFilesCheck {
  /** The first file whose bytes are not the ones the chain names, with the field it is named by. */
  broken?: { field: 'receiptFile' | 'traceFile'; problem: string };
  notes: string[];
}

interface TrailEvent {
  type: string;
  set?: Record<string, unknown>;
}

export function checkKeptFiles(trail: readonly TrailEvent[], folder: string): KeptFilesCheck {
  const outcome = trail.findLast((e) => e.type === 'outcome')?.set?.outcome as { receiptSha256?: unknown; trace?: unknown } | undefined;
  const notes: string[] = [];
  if (!outcome) return { notes };

  const receipt = typeof outcome.receiptSha256 === 'string' ? outcome.receiptSha256 : null;
  if (receipt) {
    const dir = join(folder, 'receipts');
    const name = filesIn(dir).find((f) => f.startsWith(`${receipt}.`));
    if (!name) notes.push(`  receipt ${receipt.slice(0, 12)}: not in receipts/ on this desk, so its bytes were not checked (the chain keeps its sha256)`);
    else {
      const actual = sha256Hex(readFileSync(join(dir, name)));
      if (actual !== receipt) {
        return { broken: { field: 'receiptFile', problem: `the receipt receipts/${name} hashes to ${actual.slice(0, 12)}, not the sha256 the outcome record names: the receipt file was changed` }, notes };
      }
      notes.push(`  receipt receipts/${name}: its bytes match the sha256 in the outcome record`);
    }
  }

  const trace = TraceRecord.safeParse(outcome.trace);
  if (trace.success && trace.data.kept) {
    const t = trace.data;
    let bytes: Buffer | null = null;
    try {
      bytes = readFileSync(join(folder, t.file));
    } catch {
      notes.push(`  trace ${t.file}: not on this desk, so its bytes were not checked (the chain keeps its sha256)`);
    }
    if (bytes) {
      const actual = sha256Hex(bytes);
      if (actual !== t.sha256) {
        return { broken: { field: 'traceFile', problem: `the trace ${t.file} the report links hashes to ${actual.slice(0, 12)}, not ${t.sha256.slice(0, 12)} as the outcome record names it: the trace file was changed or replaced` }, notes };
      }
      notes.push(`  trace ${t.file}: its bytes match the sha256 in the outcome record`);
    }
  }
  return { notes };
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
