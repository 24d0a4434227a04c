import { closeSync, fsyncSync, writeSync } from 'node:fs';
import { openRegularFile, readRegularFile } from '../base/regular-file';
import { sha256Hex } from '../base/canonical-json';
import { PortalDeskError } from '../base/portal-desk-error';
import { anchorHead, type ChainRecordRef } from '../store';

/**
 * The head log: the office's own record of where each run's chain stood, kept apart from the
 * store (another machine, write-once media, or printed). An intact chain cannot tell the run as
 * recorded from a whole chain rewritten from genesis; a head kept here can.
 *
 * One line per kept head, appended, never rewritten:
 *
 *   <kept at, ISO 8601 UTC> <run id> <records in the chain then> <head sha256> <run status then> <link>
 *
 * The log is itself a chain: `link` = sha256(previous line's link + '\n' + the line's first five
 * fields), the first line's previous link being sha256('portal-desk head log'). A line removed,
 * changed or inserted breaks the link of the line after it, which `--heads` reports; the last
 * line's link (printed by `--append-head`) anchors the whole log, so a removed LAST line shows
 * only against a copy of it kept elsewhere. Lines written before links existed (five fields) are
 * read at the start of a log only. Lines starting with `#` are comments. `portal-desk verify RUN --append-head FILE` appends a
 * verified run's head; `portal-desk verify RUN|EXPORT --heads FILE` checks a run against every
 * head the log keeps for it.
 */
const HEAD_LOG_HEADER =
  '# Portal Desk head log: <kept at (UTC)> <run id> <records> <head sha256> <status> <link: sha256 of the previous link and this line>. Append only; keep a copy off this machine.\n';

/** The link before a log's first line. */
export const HEAD_LOG_START = sha256Hex('portal-desk head log');

export interface HeadLogEntry {
  keptAt: string;
  runId: string;
  records: number;
  head: string;
  status: string;
  /** This line's link in the log's own chain; absent on lines written before links existed. */
  link?: string;
  /** 1-based line in the file. */
  line: number;
}

/** The link a line carries: sha256 of the previous line's link and its five fields. */
export function headLink(previous: string, entry: Pick<HeadLogEntry, 'keptAt' | 'runId' | 'records' | 'head' | 'status'>): string {
  return sha256Hex(`${previous}\n${entry.keptAt} ${entry.runId} ${entry.records} ${entry.head} ${entry.status}`);
}

export class HeadLogError extends PortalDeskError {}

const LINE = /^(\S+) (\S+) (\d+) ([0-9a-f]{64}) (\S+?)(?: ([0-9a-f]{64}))?$/;

export function parseHeadLog(text: string, path: string): HeadLogEntry[] {
  const entries: HeadLogEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m || Number.isNaN(Date.parse(m[1]!))) {
      throw new HeadLogError(`${path} line ${i + 1} is not a head-log line ("<kept at> <run id> <records> <head sha256> <status>"): ${JSON.stringify(line.slice(0, 80))}. Nothing was checked.`);
    }
    const entry: HeadLogEntry = { keptAt: m[1]!, runId: m[2]!, records: Number(m[3]), head: m[4]!, status: m[5]!, line: i + 1 };
    if (m[6]) entry.link = m[6];
    entries.push(entry);
  });
  return entries;
}

export function readHeadLog(path: string): HeadLogEntry[] {
  return parseHeadLog(readRegularFile(path, 'head log'), path);
}

/**
 * The log's own chain, line by line: the first line whose link does not follow the line before
 * it, or the head of the log (the last link) when every line holds.
 */
export function checkHeadLogChain(log: readonly HeadLogEntry[]): { ok: true; last: string; linked: number; unlinked: number } | { ok: false; entry: HeadLogEntry; problem: string } {
  let previous = HEAD_LOG_START;
  let linked = 0;
  let unlinked = 0;
  let before: HeadLogEntry | undefined;
  for (const entry of log) {
    if (entry.link === undefined) {
      if (linked > 0) return { ok: false, entry, problem: `the head log's line ${entry.line} has no link, yet follows linked lines: it was added or rewritten by hand` };
      unlinked += 1;
    } else {
      const expected = headLink(previous, entry);
      if (entry.link !== expected) {
        return {
          ok: false,
          entry,
          problem:
            `the head log's line ${entry.line} does not follow ${before ? `line ${before.line}` : 'the start of the log'} (its link is ${entry.link.slice(0, 12)}, ` +
            `the lines before it give ${expected.slice(0, 12)}): a line before it was removed or changed, or this one was`,
        };
      }
      previous = entry.link;
      linked += 1;
    }
    before = entry;
  }
  return { ok: true, last: previous, linked, unlinked };
}

/**
 * Appends one line, linked to the last line of the log (creating the file owner-only, with its
 * header) and syncs it to disk. Refuses to append to a log whose chain is already broken.
 */
export function appendHead(path: string, entry: Omit<HeadLogEntry, 'line' | 'link'>): string {
  if (/\s/.test(entry.runId) || /\s/.test(entry.status)) throw new HeadLogError(`a run id or status with spaces cannot go in the head log: ${entry.runId} ${entry.status}`);
  let existing = '';
  try {
    existing = readRegularFile(path, 'head log');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const chain = checkHeadLogChain(parseHeadLog(existing, path));
  if (!chain.ok) throw new HeadLogError(`Nothing was appended to ${path}: ${chain.problem}. Restore the log from the office's copy.`);
  const line = `${entry.keptAt} ${entry.runId} ${entry.records} ${entry.head} ${entry.status} ${headLink(chain.last, entry)}\n`;
  let fd: number;
  let fresh = false;
  try {
    fd = openRegularFile(path, 'create', 'head log');
    fresh = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    fd = openRegularFile(path, 'append', 'head log');
  }
  try {
    writeSync(fd, fresh ? HEAD_LOG_HEADER + line : line);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return line.trimEnd();
}

type HeadCheck =
  | { ok: true; entries: number; latest: HeadLogEntry | null; unanchored: number; logLines: number; logLink: string; unlinkedLines: number }
  | { ok: false; entry: HeadLogEntry; problem: string; where: 'log' | 'head' };

/**
 * Checks the log's own chain, then a verified chain's records against every head the log keeps
 * for the run: each must be the record the chain had at that count, and after a head kept once
 * the run had ended, only purges may follow.
 */
export function checkHeads(runId: string, records: readonly ChainRecordRef[], log: readonly HeadLogEntry[]): HeadCheck {
  const chain = checkHeadLogChain(log);
  if (!chain.ok) return { ...chain, where: 'log' };
  const mine = log.filter((e) => e.runId === runId);
  for (const entry of mine) {
    const anchored = anchorHead(records, entry.head, entry.records);
    if (!anchored.ok) return { ok: false, entry, problem: anchored.problem, where: 'head' };
  }
  const latest = mine.at(-1) ?? null;
  return {
    ok: true,
    entries: mine.length,
    latest,
    unanchored: latest ? records.length - latest.records : records.length,
    logLines: log.length,
    logLink: chain.last,
    unlinkedLines: chain.unlinked,
  };
}
