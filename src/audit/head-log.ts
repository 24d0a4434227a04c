import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { anchorHead, type ChainRecordRef } from '../store';
import { PortalDeskError } from '../base/portal-desk-error';

/**
 * The head log: the office's own record of where each run's chain stood, kept apart from the
 * store (another machine, write-once media, or printed). An intact chain cannot tell the run as
 * recorded from a whole chain rewritten from genesis; a head kept here can.
 *
 * One line per kept head, appended, never rewritten:
 *
 *   <kept at, ISO 8601 UTC> <run id> <records in the chain then> <head sha256> <run status then>
 *
 * Lines starting with `#` are comments. `portal-desk verify RUN --append-head FILE` appends a
 * verified run's head; `portal-desk verify RUN|EXPORT --heads FILE` checks a run against every
 * head the log keeps for it.
 */
export const HEAD_LOG_HEADER =
  '# Portal Desk head log: <kept at (UTC)> <run id> <records> <head sha256> <status>. Append only; keep a copy off this machine.\n';

export interface HeadLogEntry {
  keptAt: string;
  runId: string;
  records: number;
  head: string;
  status: string;
  /** 1-based line in the file. */
  line: number;
}

export class HeadLogError extends PortalDeskError {}

const LINE = /^(\S+) (\S+) (\d+) ([0-9a-f]{64}) (\S+)$/;

export function parseHeadLog(text: string, path: string): HeadLogEntry[] {
  const entries: HeadLogEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m || Number.isNaN(Date.parse(m[1]!))) {
      throw new HeadLogError(`${path} line ${i + 1} is not a head-log line ("<kept at> <run id> <records> <head sha256> <status>"): ${JSON.stringify(line.slice(0, 80))}. Nothing was checked.`);
    }
    entries.push({ keptAt: m[1]!, runId: m[2]!, records: Number(m[3]), head: m[4]!, status: m[5]!, line: i + 1 });
  });
  return entries;
}

export function readHeadLog(path: string): HeadLogEntry[] {
  return parseHeadLog(readFileSync(path, 'utf8'), path);
}

/** Appends one line (creating the file owner-only, with its header) and syncs it to disk. */
export function appendHead(path: string, entry: Omit<HeadLogEntry, 'line'>): string {
  const line = `${entry.keptAt} ${entry.runId} ${entry.records} ${entry.head} ${entry.status}\n`;
  if (/\s/.test(entry.runId) || /\s/.test(entry.status)) throw new HeadLogError(`a run id or status with spaces cannot go in the head log: ${entry.runId} ${entry.status}`);
  let fd: number;
  let fresh = false;
  try {
    fd = openSync(path, 'wx', 0o600);
    fresh = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    fd = openSync(path, 'a', 0o600);
  }
  try {
    writeSync(fd, fresh ? HEAD_LOG_HEADER + line : line);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return line.trimEnd();
}

export type HeadCheck =
  | { ok: true; entries: number; latest: HeadLogEntry | null; unanchored: number }
  | { ok: false; entry: HeadLogEntry; problem: string };

/**
 * Checks a verified chain's records against every head the log keeps for the run: each must be
 * the record the chain had at that count, and after a head kept once the run had ended, only
 * purges may follow.
 */
export function checkHeads(runId: string, records: readonly ChainRecordRef[], log: readonly HeadLogEntry[]): HeadCheck {
  const mine = log.filter((e) => e.runId === runId);
  for (const entry of mine) {
    const anchored = anchorHead(records, entry.head, entry.records);
    if (!anchored.ok) return { ok: false, entry, problem: anchored.problem };
  }
  const latest = mine.at(-1) ?? null;
  return { ok: true, entries: mine.length, latest, unanchored: latest ? records.length - latest.records : records.length };
}
