import { looksLikeExportFile, readRunExportFile } from '../../audit';
import { defaultDbPath, RunExportFormatError, verifyExport, type VerifyResult } from '../../store';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { refuseUnlessRegularFile } from '../regular-file';
import { openCommandStore } from '../store-opening';

const HELP = `portal-desk verify RUN_ID... [--db PATH]
portal-desk verify FILE... [--expect-head HASH]

Checks that nobody edited a recorded run: walks its hash chain from the run's identity through
every step and screenshot. Answers "intact (N steps, head HASH)" or names the first broken step
and what is wrong with it.

  RUN_ID              a run in the store
  FILE                a run export (written by "portal-desk replay RUN_ID --export-json FILE");
                      an argument ending in .json, or naming a file that exists, is a file
  --db PATH           the run store (default: ${defaultDbPath()})
  --expect-head HASH  FILE only: the head hash known from elsewhere (the store, a receipt); the
                      export must end there
  --json              print the verdict as JSON

Several targets may be given (runs and files); each gets its answer, prefixed with its name.
The store is opened read-only (nothing is written; a store on read-only media works).
Exit status: 0 all intact, 1 any broken (tampered), 2 no such run or file, not an export, or a
store that cannot be opened.`;

export async function verifyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { db: { type: 'string' }, 'expect-head': { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('give a RUN_ID or FILE to verify; see "portal-desk verify --help"');
  const expectHead = values['expect-head'];
  if (expectHead !== undefined && !/^[0-9a-f]{64}$/.test(expectHead)) throw new UsageError('--expect-head takes a 64-character lower-case hex sha256');
  if (expectHead !== undefined && positionals.length > 1) throw new UsageError('--expect-head applies to one FILE at a time');

  // Every target is checked for existence before any verdict is printed.
  const checks = positionals.map((target) => planCheck(target, values.db, expectHead));
  const verdicts: { target: string; verdict: VerifyResult; what: string }[] = [];
  for (const check of checks) verdicts.push({ target: check.target, ...(await check.run()) });

  if (values.json) {
    const out = verdicts.map(({ target, verdict }) => ({ target, ...verdict }));
    console.log(JSON.stringify(out.length === 1 ? out[0] : out, null, 2));
  } else {
    for (const { target, verdict, what } of verdicts) {
      const lines = verdictLines(verdict, what);
      if (verdicts.length > 1) lines[0] = `${target}: ${lines[0]}`;
      for (const line of lines) console.log(line);
    }
  }
  return verdicts.every((v) => v.verdict.ok) ? EXIT.ok : EXIT.notDone;
}

interface Check {
  target: string;
  run(): Promise<{ verdict: VerifyResult; what: string }>;
}

/** Decides what a target is and fails early (as a usage error) when it cannot be checked at all. */
function planCheck(target: string, db: string | undefined, expectHead: string | undefined): Check {
  if (looksLikeExportFile(target)) {
    if (db !== undefined) throw new UsageError(`${target} is an export file; --db applies to a RUN_ID`);
    refuseUnlessRegularFile(target, 'run export');
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
      run: async () => ({
        verdict: verifyExport(loaded, expectHead ? { expectedHeadHash: expectHead } : {}),
        what: `run ${loaded.run.id} as exported ${loaded.exportedAt} to ${target}`,
      }),
    };
  }
  if (expectHead !== undefined) throw new UsageError('--expect-head applies to an export FILE; a run in the store is checked against its own head');
  const dbPath = db ?? defaultDbPath();
  return {
    target,
    run: async () => {
      const store = openCommandStore(dbPath, 'read');
      try {
        if (!(await store.getRun(target))) throw new UsageError(`no run "${shownArg(target)}" in ${dbPath}; check the run id and --db`);
        return { verdict: await store.verifyRun(target), what: `run ${target} in ${dbPath}` };
      } finally {
        store.close();
      }
    },
  };
}

/** `intact (8 steps, head …)` or `broken at step 3: …`, then one line of detail. */
export function verdictLines(v: VerifyResult, what: string): string[] {
  if (v.ok) {
    const purged = v.purgedScreenshots ? `, ${v.purgedScreenshots} purged by retention (their hashes stay in the chain)` : '';
    return [
      `intact (${v.steps} step${v.steps === 1 ? '' : 's'}, head ${v.headHash ?? 'none: the run has no steps'})`,
      `  ${what}: ${v.checkedScreenshots} screenshot${v.checkedScreenshots === 1 ? '' : 's'} checked against their hashes${purged}`,
    ];
  }
  const named = /^step (\d+): ([\s\S]*)$/.exec(v.problem);
  if (named) return [`broken at step ${named[1]}: ${named[2]}`, `  ${what}: steps before ${v.brokenStep} verify; the chain cannot vouch for step ${v.brokenStep} or any after it`];
  return [
    `broken at the run's head${v.brokenStep > 0 ? ` (after step ${v.brokenStep - 1})` : ''}: ${v.problem}`,
    `  ${what}: the ${v.brokenStep} stored step${v.brokenStep === 1 ? '' : 's'} verify, but the run's recorded head is not where they end`,
  ];
}
