import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendHead, checkHeadLogChain, checkHeads, HEAD_LOG_START, headLink, readHeadLog } from '../../src/audit';
import { verifyCommand } from '../../src/cli/commands/verify';
import { openStore, type ChainRecordRef } from '../../src/store';
import { buildStep, newRun, tempDbPath, tempDir } from '../store/fixtures';

/**
 * The head log is itself a chain: each line carries the sha256 of the previous line's link and
 * its own fields, so a line removed, changed or inserted between two others fails `--heads`,
 * naming the line. Checked on the parsed log and through `portal-desk verify --heads`.
 */
const opened: { close(): void }[] = [];
afterEach(() => {
  while (opened.length) opened.pop()?.close();
  vi.restoreAllMocks();
});

const H = (c: string) => c.repeat(64);

function logOf(lines: number): string {
  const path = join(tempDir('pd-heads-'), 'heads.log');
  for (let i = 0; i < lines; i++) appendHead(path, { keptAt: `2026-03-0${i + 1}T10:00:00.000Z`, runId: `run-${i}`, records: 3 + i, head: H('abcdef'[i % 6]!), status: 'done' });
  return path;
}

function withoutLine(path: string, n: number): void {
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.splice(n - 1, 1);
  writeFileSync(path, lines.join('\n'));
}

describe('the head log chain', () => {
  it('links each line to the one before, from a fixed start, and is written owner-only', () => {
    const path = logOf(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const entries = readHeadLog(path);
    expect(entries.map((e) => e.line)).toEqual([2, 3, 4]);
    expect(entries[0]!.link).toBe(headLink(HEAD_LOG_START, entries[0]!));
    expect(entries[2]!.link).toBe(headLink(entries[1]!.link!, entries[2]!));
    expect(checkHeadLogChain(entries)).toEqual({ ok: true, last: entries[2]!.link, linked: 3, unlinked: 0 });
  });

  it('names the line after a removed one', () => {
    const path = logOf(4);
    withoutLine(path, 3); // the second head
    const check = checkHeadLogChain(readHeadLog(path));
    expect(check).toMatchObject({ ok: false, entry: { runId: 'run-2' } });
    if (!check.ok) expect(check.problem).toMatch(/line 3 does not follow line 2 .*removed or changed/);
  });

  it('names a changed line and a line inserted by hand', () => {
    const path = logOf(3);
    writeFileSync(path, readFileSync(path, 'utf8').replace(' run-1 4 ', ' run-1 5 '));
    expect(checkHeadLogChain(readHeadLog(path))).toMatchObject({ ok: false, entry: { runId: 'run-1' } });

    const other = logOf(2);
    const lines = readFileSync(other, 'utf8').split('\n');
    lines.splice(2, 0, `2026-03-09T10:00:00.000Z run-x 9 ${H('9')} done`);
    writeFileSync(other, lines.join('\n'));
    const check = checkHeadLogChain(readHeadLog(other));
    expect(check).toMatchObject({ ok: false, entry: { runId: 'run-x' } });
    if (!check.ok) expect(check.problem).toMatch(/has no link, yet follows linked lines/);
  });

  it('reads lines written before links existed at the start of a log, and links new lines after them', () => {
    const path = join(tempDir('pd-heads-'), 'heads.log');
    writeFileSync(path, `# old log\n2026-01-01T00:00:00.000Z run-old 5 ${H('1')} done\n`, { mode: 0o600 });
    appendHead(path, { keptAt: '2026-03-01T00:00:00.000Z', runId: 'run-new', records: 4, head: H('2'), status: 'failed' });
    expect(checkHeadLogChain(readHeadLog(path))).toMatchObject({ ok: true, linked: 1, unlinked: 1 });
  });

  it('refuses to append to a broken log, writing nothing', () => {
    const path = logOf(3);
    withoutLine(path, 2);
    const before = readFileSync(path, 'utf8');
    expect(() => appendHead(path, { keptAt: '2026-03-09T00:00:00.000Z', runId: 'run-9', records: 1, head: H('3'), status: 'done' })).toThrow(/Nothing was appended .*line 2 does not follow the start of the log/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it("checkHeads fails on the log's own break before it looks at any head", () => {
    const path = logOf(3);
    withoutLine(path, 2);
    const records: ChainRecordRef[] = [{ pos: 0, hash: H('b'), kind: 'event', type: 'created' }];
    expect(checkHeads('run-1', records, readHeadLog(path))).toMatchObject({ ok: false, where: 'log' });
  });
});

describe('portal-desk verify --append-head / --heads', () => {
  it('appends linked heads, then fails a log with a line removed, naming the field headLog', async () => {
    const db = tempDbPath();
    const store = openStore(db);
    opened.push(store);
    for (const id of ['run-2026-03-02-h1', 'run-2026-03-02-h2']) {
      await store.createRun(newRun({ id }));
      const { step, png } = buildStep(id, 0);
      await store.recordStep(step, png);
      await store.updateRun(id, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-1', endedAt: '2026-03-02T09:16:00.000Z' });
    }
    store.close();
    const log = join(tempDir('pd-heads-'), 'heads.log');
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
    expect(await verifyCommand(['run-2026-03-02-h1', '--db', db, '--append-head', log])).toBe(0);
    expect(await verifyCommand(['run-2026-03-02-h2', '--db', db, '--append-head', log])).toBe(0);
    expect(await verifyCommand(['run-2026-03-02-h2', '--db', db, '--heads', log])).toBe(0);
    expect(out.join('\n')).toMatch(/its 2 lines are linked, ending at [0-9a-f]{12}/);

    withoutLine(log, 2); // the first run's head: undetectable before the log was chained
    out.length = 0;
    expect(await verifyCommand(['run-2026-03-02-h2', '--db', db, '--heads', log, '--json'])).toBe(1);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ ok: false, field: 'headLog', problem: expect.stringMatching(/line 2 does not follow the start of the log/) });
  });
});
