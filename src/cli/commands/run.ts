import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../agent/browser/chromium';
import { loadCaseFile } from '../../agent/case/case-files';
import { loadPortalProfile } from '../../agent/case/portal-profiles';
import { AnthropicConfigError } from '../../agent/decide/anthropic';
import type { RunSummary } from '../../shared/run';
import { createPlanner, PLANNER_KINDS } from '../../service/planners';
import { executeRun } from '../../service/run-service';
import { traceKeeperIn } from '../../audit';
import { TraceRecord } from '../../shared/trace';
import type { RunEvent } from '../../store/records';
import { defaultDbPath } from '../../store';
import { routesFor } from '../../service/learned-routes';
import { CredentialChain } from '../../vault';
import { CASE_RUN_OPTIONS, oneOf, parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { autoApprovalWarning, TerminalApprovals, TerminalInputs } from '../clerk-terminal';
import { formatStep } from '../step-log';
import { openDeskStore } from '../store-opening';
import { openCommandVault } from '../vault-opening';
import { DemoLoader } from '../demo-portals';

const HELP = `portal-desk run --case FILE [options]

Runs one case file against its portal. Lab portals (shops, power, tax) start the built-in lab.
Each step is printed on stderr: number, action, element, guard verdict, outcome.

  --case FILE                 the client's case file (JSON)
  --model rules|anthropic     planner: the offline rule-based filler (default) or Claude
  --approve ask|all|none      gated actions: ask on the terminal (default); all/none are for demos and tests
  --layout original|redesigned  lab portals only: which layout the lab serves
  --lab-url URL               lab portals only: use the lab already running there (e.g. http://127.0.0.1:41234,
                              as "portal-desk lab" prints) instead of starting one; its owner configures it
  --db PATH                   the run store (default: ${defaultDbPath()})
  --otp-command CMD           a shell command that prints the one-time code (tests); default: ask on the terminal
  --answer FIELD=VALUE        a clerk answer given in advance for a missing case field (repeatable)
  --max-steps N               step cap (default 40, at most 100)
  --time-limit SECONDS        time limit on the agent's working time (default 400); waits for you are not counted
  --wait-limit SECONDS        how long an approval or a question waits for you (default 1800); then the run stops,
                              resumable, with nothing sent
  --no-route                  the planner decides every page even where a learned route exists (see "portal-desk routes");
                              the route is left as it is
  --trace                     also record a Playwright trace (DOM snapshots, network, console) once code has signed in;
                              kept 0600 beside the store in traces/RUN.zip unless it holds a secret of the run (then
                              dropped, with the reason); its sha256 goes into the run's final record.
                              Open it with: npx playwright-core show-trace FILE
  --headed                    show the browser window
  --json                      print a summary as JSON on stdout`;

export async function runCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CASE_RUN_OPTIONS,
    model: { type: 'string' },
    layout: { type: 'string' },
    'wait-limit': { type: 'string' },
    'no-route': { type: 'boolean' },
    trace: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (!values.case) throw new UsageError('--case FILE is required');
  const plannerKind = oneOf('model', values.model, PLANNER_KINDS, 'rules');
  const approveMode = oneOf('approve', values.approve, ['ask', 'all', 'none'] as const, 'ask');
  const layout = values.layout === undefined ? undefined : oneOf('layout', values.layout, ['original', 'redesigned'] as const, 'original');
  const limits = {
    maxSteps: positiveInt('max-steps', values['max-steps'], 40, 100),
    timeLimitMs: positiveInt('time-limit', values['time-limit'], 400, 3600) * 1000,
    clerkWaitMs: positiveInt('wait-limit', values['wait-limit'], 1800, 86_400) * 1000,
  };
  const answers = parseAnswers(values.answer);

  // Everything the user gave is checked before anything runs.
  const caseFile = loadCaseFile(values.case);
  const baseProfile = loadPortalProfile(caseFile.portal);
  const demo = new DemoLoader();
  await demo.prepare([baseProfile], values['lab-url'] !== undefined);
  try {
    createPlanner(plannerKind, baseProfile, {}, process.env, demo);
  } catch (err) {
    if (err instanceof AnthropicConfigError) throw new UsageError(err.message);
    throw err;
  }
  const external = values['lab-url'] === undefined ? undefined : await demo.running(values['lab-url']);
  if (external && layout) throw new UsageError('--layout cannot be used with --lab-url: the running lab’s owner configures it');
  if (!external && layout && !demo.portalId(baseProfile)) throw new UsageError('--layout applies to lab portals only');

  const log = (line: string) => process.stderr.write(`${line}\n`);
  const dbPath = values.db ?? defaultDbPath();
  // The vault and the store open before anything starts, so either one that cannot be used stops
  // the command in one line (and an unusable vault leaves no store behind); everything started
  // after the store is inside the cleanup below.
  const { vault, loginStates } = await openCommandVault();
  const store = await openDeskStore(dbPath, 'write');
  let browser: Browser | undefined;
  try {
    // Runs left running by a process that died become `interrupted`, ready for `resume`.
    await store.markInterrupted();
    const { profile, lab } = external ? { profile: external.bind(baseProfile), lab: undefined } : await demo.bind(baseProfile);
    if (external) {
      log(`lab: ${profile.name} on ${profile.startUrl} (the lab running at ${values['lab-url']})`);
    } else if (lab) {
      lab.configure(caseFile.clientId, { layout: layout ?? 'original' });
      log(`lab: ${profile.name} on ${profile.startUrl} (layout ${layout ?? 'original'})`);
    }
    const warning = autoApprovalWarning(approveMode);
    if (warning) log(warning);
    browser = await launchChromium({ headless: !values.headed, hostResolverRules: lab?.hostResolverRules ?? external?.hostResolverRules });
    log(`run: case ${caseFile.caseId} (client ${caseFile.clientId}) on ${profile.id}, store ${dbPath}`);
    const finished = await executeRun(
      {
        store,
        browser,
        approvals: new TerminalApprovals(approveMode, log),
        inputs: new TerminalInputs(values['otp-command'], answers),
        credentials: new CredentialChain(lab || external ? [vault, demo.credentials] : [vault]),
        loginStates,
        demo,
        ...routesFor(store, { noRoute: values['no-route'] }),
        ...(values.trace ? { traces: traceKeeperIn(store.localFolder ?? dirname(store.path)) } : {}),
      },
      {
        caseFile,
        profile,
        planner: plannerKind,
        approveMode,
        layout,
        limits,
        trace: values.trace === true,
        onStart: (runId) => log(`run id: ${runId} (if this process stops, continue with "portal-desk resume ${runId} --db ${dbPath}")`),
        listener: {
          log,
          step: (step) => formatStep(step).forEach((line) => log(line)),
          status: (status, reason) => log(`== ${status}${reason ? `: ${reason}` : ''}`),
        },
      },
    );
    const run = await store.getRun(finished.runId);
    const submitted = lab?.submissions({ clientId: caseFile.clientId }).find((s) => s.applicationNumber === finished.applicationNumber);
    const summary: RunSummary = {
      runId: finished.runId,
      caseId: caseFile.caseId,
      status: finished.status,
      reason: finished.reason,
      steps: finished.steps,
      applicationNumber: finished.applicationNumber,
      submittedFields: submitted?.fields,
      usage: run?.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      approvals: finished.approvals,
      wallMs: finished.wallMs,
      ...(finished.route ? { route: { routeSteps: finished.route.routeTurns, plannerSteps: finished.route.plannerTurns, update: finished.route.update.kind, ...(finished.route.update.version ? { version: finished.route.update.version } : {}) } } : {}),
    };
    if (values.trace) log(traceLine(await store.auditTrail(finished.runId), store.localFolder ?? dirname(store.path)));
    if (finished.route) log(`route: ${finished.route.routeTurns} page(s) from the learned route, ${finished.route.plannerTurns} from the planner; ${finished.route.update.line}`);
    log(finished.status === 'done' ? `DONE: ${finished.reason}` : `NOT DONE (${finished.status}): ${finished.reason}`);
    if (values.json) console.log(JSON.stringify(summary, null, 2));
    return finished.status === 'done' ? EXIT.ok : EXIT.notDone;
  } finally {
    await browser?.close().catch(() => undefined);
    store.close();
    await demo.stop();
  }
}

/** `--answer FIELD=VALUE`, repeatable: the clerk's answers given in advance. */
export function parseAnswers(pairs: readonly string[] | undefined): Record<string, string> {
  return Object.fromEntries(
    (pairs ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--answer takes FIELD=VALUE (got "${shownArg(pair)}")`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** What became of the run's trace, as its chained outcome record says. */
function traceLine(trail: readonly RunEvent[], folder: string): string {
  const outcome = trail.findLast((e) => e.type === 'outcome')?.set?.outcome as { trace?: unknown } | undefined;
  const trace = TraceRecord.safeParse(outcome?.trace);
  if (!trace.success) return 'trace: none recorded (the run ended without a final record)';
  if (!trace.data.kept) return `trace: not kept: ${trace.data.reason}`;
  const path = join(folder, trace.data.file);
  return `trace: ${path} (${Math.round(trace.data.bytes / 1024)} KB, sha256 ${trace.data.sha256}, scanned ${trace.data.files} files for the run's secrets); open it with: npx playwright-core show-trace ${path}`;
}
