import { appendHead, checkHeads, checkKeptFiles, HeadLogError, looksLikeExportFile, readHeadLog, readRunExportFile, type HeadLogEntry } from '../../audit';
import { defaultDbPath, RunExportFormatError, verifyExport, type ChainRecordRef, type VerifyResult } from '../../store';
import { dirname } from 'node:path';
import { closeSync, existsSync } from 'node:fs';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { NotRegularFileError, openRegularFile } from '../../base/regular-file';
import { openDeskStore } from '../store-opening';

const HELP = `portal-desk verify RUN_ID... [--db PATH]
portal-desk verify FILE... [--expect-head HASH]

Checks that nobody edited a recorded run: walks its hash chain from the run's identity through
every step and screenshot; for a RUN_ID, also hashes the receipt and trace kept beside the store
(receipts/, traces/) against the sha256 the outcome record names. Answers "intact (N steps, head HASH)" or names the first broken step
and what is wrong with it.

  RUN_ID              a run in the store
  FILE                a run export (written by "portal-desk replay RUN_ID --export-json FILE");
                      an argument ending in .json, or naming a file that exists, is a file
  --db PATH           the run store (default: ${defaultDbPath()})
  --expect-head HASH  FILE only: the head hash known from elsewhere (the store, a receipt); the
                      export must end there
  --heads FILE        also check each run against the head log FILE: every head the log keeps
                      for the run must be in its chain where the log says; this is what catches a
                      chain rewritten whole from its genesis, which verifies as intact on its own
  --append-head FILE  RUN_ID only: after an intact verdict, append the run's head to the head log
                      FILE (created owner-only). Keep that log apart from the store (another
                      machine, write-once media, or print it); lines are
                      "<kept at> <run id> <records> <head sha256> <status> <link>", each
                      line linked to the one before, so a removed line fails --heads
  --json              print the verdict as JSON

Several targets may be given (runs and files); each gets its answer, prefixed with its name.
The store is opened read-only (nothing is written; a store on read-only media works).
Exit status: 0 all intact, 1 any broken (tampered), 2 no such run or file, not an export, or a
store that cannot be opened.`;

export async function verifyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { db: { type: 'string' }, 'expect-head': { type: 'string' }, heads: { type: 'string' }, 'append-head': { type: 'string' }, json: { type: 'boolean' } },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('give a RUN_ID or FILE to verify; see "portal-desk verify --help"');
  const expectHead = values['expect-head'];
  if (expectHead !== undefined && !/^[0-9a-f]{64}$/.test(expectHead)) throw new UsageError('--expect-head takes a 64-character lower-case hex sha256');
  if (expectHead !== undefined && positionals.length > 1) throw new UsageError('--expect-head applies to one FILE at a time');

  const anchors = headOptions(values.heads, values['append-head']);

  // Every target is checked for existence before any verdict is printed.
  const checks = positionals.map((target) => planCheck(target, values.db, expectHead, anchors));
  const verdicts: { target: string; verdict: VerifyResult; what: string; notes?: string[] }[] = [];
  for (const check of checks) verdicts.push({ target: check.target, ...(await check.run()) });

  if (values.json) {
    const out = verdicts.map(({ target, verdict }) => ({ target, ...verdict }));
    console.log(JSON.stringify(out.length === 1 ? out[0] : out, null, 2));
  } else {
    for (const { target, verdict, what, notes } of verdicts) {
      const lines = [...verdictLines(verdict, what), ...(notes ?? [])];
      if (verdicts.length > 1) lines[0] = `${target}: ${lines[0]}`;
      for (const line of lines) console.log(line);
    }
  }
  return verdicts.every((v) => v.verdict.ok) ? EXIT.ok : EXIT.notDone;
}

interface Check {
  target: string;
  run(): Promise<{ verdict: VerifyResult; what: string; notes?: string[] }>;
}

/** Decides what a target is and fails early (as a usage error) when it cannot be checked at all. */
function planCheck(target: string, db: string | undefined, expectHead: string | undefined, anchors: Anchors): Check {
  if (looksLikeExportFile(target)) {
    if (db !== undefined) throw new UsageError(`${target} is an export file; --db applies to a RUN_ID`);
    if (anchors.appendTo !== undefined) throw new UsageError(`--append-head takes a run's head from the store; ${target} is an export file (check it with --heads instead)`);
    let exp;
    try {
      exp = readRunExportFile(target);
    } catch (err) {
      if (err instanceof RunExportFormatError) throw new UsageError(err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`no such file: ${shownArg(target)}`);
      throw err;
    }
    const loaded = exp;
    return {
      target,
      run: async () => {
        const records: ChainRecordRef[] = [];
        const verdict = verifyExport(loaded, { ...(expectHead ? { expectedHeadHash: expectHead } : {}), onRecord: (r) => records.push(r) });
        return { ...againstHeadLog(loaded.run.id, verdict, records, anchors), what: `run ${loaded.run.id} as exported ${loaded.exportedAt} to ${target}` };
      },
    };
  }
  if (expectHead !== undefined) throw new UsageError('--expect-head applies to an export FILE; a run in the store is checked against its own head');
  const dbPath = db ?? defaultDbPath();
  return {
    target,
    run: async () => {
      const store = await openDeskStore(dbPath, 'read');
      try {
        const run = await store.getRun(target);
        if (!run) throw new UsageError(`no run "${shownArg(target)}" in ${dbPath}; check the run id and --db`);
        const records: ChainRecordRef[] = [];
        const checked = againstHeadLog(target, await store.verifyRun(target, { onRecord: (r) => records.push(r) }), records, anchors);
        // The receipt and trace the chain names by sha256 sit beside the store, outside the database.
        const folder = store.localFolder ?? (store.kind === 'postgres' ? undefined : dirname(store.path));
        if (checked.verdict.ok && folder !== undefined) {
          const kept = checkKeptFiles(await store.auditTrail(target), folder);
          if (kept.broken) checked.verdict = { ok: false, format: checked.verdict.format, brokenStep: checked.verdict.steps, where: 'run', field: kept.broken.field, problem: kept.broken.problem };
          checked.notes.push(...kept.notes);
        }
        if (anchors.appendTo !== undefined) checked.notes.push(keepHead(anchors.appendTo, target, checked.verdict, records, run.status));
        return { ...checked, what: `run ${target} in ${dbPath}` };
      } finally {
        store.close();
      }
    },
  };
}

/**
 * `intact (8 steps, 12 audit events, head …)` with what that proves and what it cannot, or
 * `broken at step 3: …` / `broken: the run's reason …` naming the field, then one line of detail.
 */
export function verdictLines(v: VerifyResult, what: string): string[] {
  if (v.ok) {
    const purged = v.purgedScreenshots ? `, ${v.purgedScreenshots} purged by retention (named by a chained purge record${v.format === 1 ? ' (format 1: not checked)' : ''})` : '';
    const events = v.format === 2 ? `, ${v.events ?? 0} audit event${v.events === 1 ? '' : 's'}` : '';
    return [
      `intact (${v.steps} step${v.steps === 1 ? '' : 's'}${events}, head ${v.headHash ?? 'none: the run has no records'})`,
      `  ${what}: ${v.checkedScreenshots} screenshot${v.checkedScreenshots === 1 ? '' : 's'} checked against their hashes${purged}`,
      v.format === 1 ? '  older chain format (1): it covers only the following' : '  the chain covers:',
      ...v.covers.map((c) => `    - ${c}`),
      `  it cannot prove: ${v.cannot}`,
    ];
  }
  const field = v.field ? ` [field: ${v.field}]` : '';
  const named = /^step (\d+): ([\s\S]*)$/.exec(v.problem);
  if (named && (v.where === undefined || v.where === 'step' || v.where === 'screenshot')) {
    return [`broken at step ${named[1]}: ${named[2]}${field}`, `  ${what}: steps before ${v.brokenStep} verify; the chain cannot vouch for step ${v.brokenStep} or any after it`];
  }
  if (v.where === 'event' || v.where === 'genesis') {
    return [`broken: ${v.problem}${field}`, `  ${what}: the ${v.brokenStep} step${v.brokenStep === 1 ? '' : 's'} before the break verify; the chain cannot vouch for anything from it on`];
  }
  if (v.where === 'run' && (v.field === 'receiptFile' || v.field === 'traceFile')) return [`broken: ${v.problem}${field}`, `  ${what}: the chained records verify, but a file kept beside the store is not the one the chain names`];
  if (v.where === 'run') return [`broken: ${v.problem}${field}`, `  ${what}: the chained records verify, but the run record shows a value the chain does not hold`];
  return [
    `broken at the run's head${v.brokenStep > 0 ? ` (after step ${v.brokenStep - 1})` : ''}: ${v.problem}${field}`,
    `  ${what}: the ${v.brokenStep} stored step${v.brokenStep === 1 ? '' : 's'} verify, but the run's recorded head is not where they end`,
  ];
}

interface Anchors {
  log?: { path: string; entries: HeadLogEntry[] };
  appendTo?: string;
}

function headOptions(heads: string | undefined, appendTo: string | undefined): Anchors {
  const anchors: Anchors = {};
  if (appendTo !== undefined) {
    checkAppendable(appendTo);
    anchors.appendTo = appendTo;
  }
  if (heads === undefined) return anchors;
  try {
    anchors.log = { path: heads, entries: readHeadLog(heads) };
  } catch (err) {
    if (err instanceof HeadLogError || err instanceof NotRegularFileError) throw new UsageError(err.message);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`no head log at ${shownArg(heads)}; give the file "verify --append-head" writes`);
    throw err;
  }
  return anchors;
}

/** An intact verdict checked against the head log, when one was given. */
function againstHeadLog(runId: string, verdict: VerifyResult, records: readonly ChainRecordRef[], anchors: Anchors): { verdict: VerifyResult; notes: string[] } {
  if (!anchors.log || !verdict.ok) return { verdict, notes: [] };
  const check = checkHeads(runId, records, anchors.log.entries);
  if (!check.ok) {
    return {
      verdict: {
        ok: false,
        format: verdict.format,
        brokenStep: verdict.steps,
        where: 'head',
        field: check.where === 'log' ? 'headLog' : 'headHash',
        problem:
          check.where === 'log'
            ? `the head log ${anchors.log.path} is not whole: ${check.problem}; its heads cannot vouch for this run`
            : `against the head log ${anchors.log.path} (line ${check.entry.line}, kept ${check.entry.keptAt} at ${check.entry.records} records): ${check.problem}`,
      },
      notes: [],
    };
  }
  const whole =
    `  head log ${anchors.log.path}: its ${check.logLines} line${check.logLines === 1 ? '' : 's'} are linked, ending at ${check.logLink.slice(0, 12)}` +
    (check.unlinkedLines > 0 ? ` (${check.unlinkedLines} older line${check.unlinkedLines === 1 ? '' : 's'} without links)` : '') +
    '; a removed last line shows only against a copy of that link kept elsewhere';
  if (!check.latest) return { verdict, notes: [`  head log ${anchors.log.path}: no head kept for ${runId}, so nothing anchors this chain outside the store`, whole] };
  return {
    verdict,
    notes: [
      `  head log ${anchors.log.path}: matches ${check.entries} kept head${check.entries === 1 ? '' : 's'}, the latest kept ${check.latest.keptAt} at ${check.latest.records} records` +
        (check.unanchored > 0 ? `; ${check.unanchored} record${check.unanchored === 1 ? '' : 's'} since then are vouched for by the chain alone` : '; nothing since'),
      whole,
    ],
  };
}

/** `--append-head FILE` before anything runs: a regular file there (opened, never followed as a link), or none in a folder that exists. */
function checkAppendable(path: string): void {
  try {
    closeSync(openRegularFile(path, 'append', 'head log'));
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new UsageError(`--append-head: ${err.message}`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && existsSync(dirname(path))) return;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`--append-head: no folder ${shownArg(dirname(path))} to keep the head log ${shownArg(path)} in`);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new UsageError(`--append-head: ${shownArg(path)} cannot be written (${code})`);
    throw err;
  }
}

function keepHead(path: string, runId: string, verdict: VerifyResult, records: readonly ChainRecordRef[], status: string): string {
  if (!verdict.ok) return `  head not appended to ${path}: the chain is broken`;
  if (!verdict.headHash) return `  head not appended to ${path}: the run has no records yet`;
  try {
    const line = appendHead(path, { keptAt: new Date().toISOString(), runId, records: records.length, head: verdict.headHash, status });
    return `  appended to the head log ${path}: ${line}`;
  } catch (err) {
    if (err instanceof HeadLogError || err instanceof NotRegularFileError) return `  head not appended: ${err.message}`;
    throw err;
  }
}
