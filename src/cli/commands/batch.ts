import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { BrowserKeeper } from '../../agent/browser/browser-keeper';
import { launchChromium } from '../../agent/browser/chromium';
import { ConfigFileError } from '../../agent/case/config-file-error';
import { loadPortalProfile } from '../../agent/case/portal-profiles';
import { AnthropicConfigError } from '../../agent/decide/anthropic';
import type { Lab } from '../../../lab';
import { refusedOutcome, runBatch, type BatchOutcome } from '../../service/batch';
import { loadBatchEntries } from '../../service/batch-entries';
import { createPlanner } from '../../service/planners';
import { routesFor } from '../../service/learned-routes';
import type { CaseFile } from '../../shared/case-file';
import { defaultDbPath } from '../../store';
import { CredentialChain } from '../../vault';
import { oneOf, parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { autoApprovalWarning, TerminalApprovals, TerminalInputs } from '../clerk-terminal';
import { openDeskStore } from '../store-opening';
import { openCommandVault } from '../vault-opening';
import { DemoLoader } from '../demo-portals';

const HELP = `portal-desk batch DIR|FILE... [options]

Runs a queue of case files (every *.json of a folder, or the files given), each client in its own
browser context, at most N at a time. A run waiting for the clerk (an approval, a one-time code)
holds only its own place: the others go on, and the terminal asks one question at a time, naming
the case. Two case files of the same client and portal never run at once. A case file that cannot
be used is reported in one line and the others run. A summary table ends the batch.

  --concurrency N             runs at once (default 2, at most 16)
  --model rules|anthropic     planner: the offline rule-based filler (default) or Claude
  --approve ask|all|none      gated actions: ask on the terminal (default); all/none are for demos and tests
  --lab-url URL               lab portals only: use the lab already running there (e.g. http://127.0.0.1:41234)
                              instead of starting one; its owner configures it
  --db PATH                   the run store (default: ${defaultDbPath()})
  --otp-command CMD           a shell command that prints a one-time code (tests; PORTAL_DESK_RUN_ID names the run)
  --no-route                  the planner decides every page even where a learned route exists (see "portal-desk routes")
  --json                      print the runs and the summary as JSON on stdout (the table goes to stderr)

Exit code 0 when every case file ran to done; 1 when any did not or was refused; 2 on bad options,
a path that does not exist, a store or vault that cannot be used, or when no case file could run.`;

const PLANNERS = ['rules', 'anthropic'] as const;

export async function batchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      concurrency: { type: 'string' },
      model: { type: 'string' },
      approve: { type: 'string' },
      'lab-url': { type: 'string' },
      db: { type: 'string' },
      'otp-command': { type: 'string' },
      json: { type: 'boolean' },
      'no-route': { type: 'boolean' },
    },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('give a folder of case files or case files (see "portal-desk batch --help")');
  const concurrency = positiveInt('concurrency', values.concurrency, 2, 16);
  const planner = oneOf('model', values.model, PLANNERS, 'rules');
  const approveMode = oneOf('approve', values.approve, ['ask', 'all', 'none'] as const, 'ask');
  const demo = new DemoLoader();
  const external = values['lab-url'] === undefined ? undefined : await demo.running(values['lab-url']);

  const missing = positionals.find((p) => !existsSync(p));
  if (missing !== undefined) throw new UsageError(`no such file or folder: ${shownArg(missing)}`);
  const entries = loadBatchEntries(positionals);
  if (entries.length === 0) throw new UsageError(`no case files (*.json) in ${positionals.join(', ')}`);
  const firstCase = entries.find((e): e is { source: string; caseFile: CaseFile } => 'caseFile' in e);
  if (firstCase) {
    try {
      const profile = loadPortalProfile(firstCase.caseFile.portal);
      await demo.prepare([profile]);
      createPlanner(planner, profile, {}, process.env, demo);
    } catch (err) {
      if (err instanceof AnthropicConfigError) throw new UsageError(err.message);
      if (!(err instanceof ConfigFileError)) throw err;
      // An unknown portal is that case file's problem, reported with it below.
    }
  }

  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (!firstCase) {
    // Nothing can run: say why for each file, and open no store, vault or browser.
    const outcomes = entries.map((entry) => refusedOutcome(entry as { source: string; problem: string }));
    for (const outcome of outcomes) log(outcomeLine(outcome));
    report(outcomes, Date.now(), values.json ?? false, undefined, log);
    return EXIT.badInput;
  }
  const warning = autoApprovalWarning(approveMode);
  if (warning) log(warning);
  const dbPath = values.db ?? defaultDbPath();
  // Opened before anything starts (an unusable vault leaves no store behind); everything after
  // the store is inside the cleanup below.
  const { vault, loginStates } = await openCommandVault();
  const store = await openDeskStore(dbPath, 'write');
  // One browser per host mapping, relaunched when it dies: the run it killed stops interrupted, the next ones go on.
  const browsers = new BrowserKeeper<string>(
    (rules) => launchChromium({ hostResolverRules: rules || undefined }),
    () => log('batch: the browser stopped; the next case starts a new one'),
  );
  const browserFor = (hostResolverRules: string | undefined): Promise<Browser> => browsers.get(hostResolverRules ?? '');
  // Lab logins are offered only for portals this batch bound to a lab, never to a real portal that shares an id.
  const labBound = new Set<string>();
  let inProcessLab: Lab | undefined;
  const names = new Map<string, string>();
  const name = (runId: string) => names.get(runId);
  const tag = (c: CaseFile) => `[${c.caseId}]`;
  const started = Date.now();

  try {
    await store.markInterrupted();
    log(`batch: ${entries.length} case file(s), ${concurrency} at a time, model ${planner}, store ${dbPath}`);
    const outcomes = await runBatch(entries, {
      concurrency,
      services: {
        store,
        approvals: new TerminalApprovals(approveMode, log, name),
        inputs: new TerminalInputs(values['otp-command'], {}, name),
        credentials: new CredentialChain([vault, { get: async (clientId, portalId) => (labBound.has(portalId) ? demo.credentials.get(clientId, portalId) : null) }]),
        loginStates,
        demo,
        ...routesFor(store, { noRoute: values['no-route'] }),
      },
      prepare: async (caseFile) => {
        const base = profileOf(caseFile);
        await demo.prepare([base]);
        if (demo.portalId(base)) labBound.add(base.id);
        if (external && demo.portalId(base)) return { browser: await browserFor(external.hostResolverRules), request: { profile: external.bind(base), planner, approveMode } };
        const { profile, lab } = await demo.bind(base);
        inProcessLab ??= lab;
        return { browser: await browserFor(lab?.hostResolverRules), request: { profile, planner, approveMode, layout: lab?.variant(caseFile.clientId).layout } };
      },
      listener: {
        started: (caseFile, runId) => {
          names.set(runId, `case ${caseFile.caseId}, client ${caseFile.clientId}`);
          log(`${tag(caseFile)} run ${runId} started on ${caseFile.portal} (client ${caseFile.clientId})`);
        },
        status: (caseFile, status, reason) => {
          if (status === 'awaiting_approval' || status === 'awaiting_input') log(`${tag(caseFile)} ${status}: ${reason ?? ''}`);
        },
        finished: (outcome) => log(outcomeLine(outcome)),
      },
    });

    return report(outcomes, started, values.json ?? false, inProcessLab, log);
  } finally {
    await browsers.closeAll();
    store.close();
    await demo.stop();
  }
}

/** The summary table (stdout, or stderr beside --json) and the exit code. */
function report(outcomes: readonly BatchOutcome[], started: number, json: boolean, lab: Lab | undefined, log: (line: string) => void): number {
  const runs = outcomes.map((o) => ({
    ...o,
    // What the lab recorded as submitted, when the lab lives in this process (as `run --json` has it).
    submittedFields: lab && o.applicationNumber ? lab.submissions({ clientId: o.clientId }).find((s) => s.applicationNumber === o.applicationNumber)?.fields : undefined,
  }));
  const summary = {
    caseFiles: outcomes.length,
    done: outcomes.filter((o) => o.status === 'done').length,
    notDone: outcomes.filter((o) => o.status !== 'done' && o.status !== 'invalid').length,
    refused: outcomes.filter((o) => o.status === 'invalid').length,
    wallMs: Date.now() - started,
  };
  const table = summaryTable(outcomes);
  const totals = `${summary.done} of ${summary.caseFiles} done, ${summary.notDone} not done, ${summary.refused} refused, in ${Math.round(summary.wallMs / 1000)} s`;
  if (json) {
    log(`${table}\n${totals}`);
    console.log(JSON.stringify({ runs, summary }, null, 2));
  } else {
    console.log(`${table}\n${totals}`);
  }
  return summary.done === summary.caseFiles ? EXIT.ok : EXIT.notDone;
}

/** A case's portal profile; a profile that cannot be used is refused as the case file's problem, naming both. */
function profileOf(caseFile: CaseFile) {
  try {
    return loadPortalProfile(caseFile.portal);
  } catch (err) {
    if (err instanceof ConfigFileError) throw new Error(`its portal profile "${shownArg(caseFile.portal)}" cannot be used: ${err.message}`);
    throw err;
  }
}

function outcomeLine(o: BatchOutcome): string {
  if (o.status === 'invalid') return o.reason.startsWith(o.source) ? `REFUSED ${o.reason}` : `REFUSED ${o.source}: ${o.reason}`;
  const what = o.status === 'done' ? `DONE: ${o.reason}` : `NOT DONE (${o.status}): ${o.reason}`;
  return `[${o.caseId}] ${what} (${o.steps} steps, ${Math.round(o.wallMs / 100) / 10} s)`;
}

/** The table a batch ends with: one row per case file, in queue order. */
function summaryTable(outcomes: readonly BatchOutcome[]): string {
  const rows = outcomes.map((o) => [
    o.caseId ?? o.source,
    o.status === 'invalid' ? 'refused' : o.status,
    o.status === 'invalid' ? '' : String(o.steps),
    o.status === 'invalid' ? '' : String(o.approvals),
    o.status === 'invalid' ? '' : `${Math.round(o.wallMs / 1000)}`,
    o.applicationNumber ?? (o.reason.startsWith(`${o.source}: `) ? o.reason.slice(o.source.length + 2) : o.reason),
  ]);
  const header = ['case', 'status', 'steps', 'approvals', 'wall s', 'application number or reason'];
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
