import type { Browser } from 'playwright-core';
import { BrowserKeeper } from '../../agent/browser/browser-keeper';
import { launchChromium } from '../../agent/browser/chromium';
import { loadPortalProfile } from '../../agent/case/portal-profiles';
import { AnthropicConfigError } from '../../agent/decide/anthropic';
import { OfficeWorker, type CaseExecutor } from '../../service/office-queue';
import { officeDeskName, OfficeWaits } from '../../service/office-waits';
import { createPlanner, PLANNER_KINDS } from '../../service/planners';
import { executeRun } from '../../service/run-service';
import { routesFor } from '../../service/learned-routes';
import type { CaseFile } from '../../shared/case-file';
import { defaultDbPath } from '../../store';
import { CredentialChain } from '../../vault';
import { oneOf, parseCommandArgs, positiveInt } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { autoApprovalWarning, TerminalApprovals, TerminalInputs } from '../clerk-terminal';
import { formatStep } from '../step-log';
import { openCommandVault } from '../vault-opening';
import { officeUrl, openOfficeQueue, openOfficeStore } from './office-store';
import { DemoLoader } from '../demo-portals';

const HELP = `portal-desk worker [options]

Joins this desk to the office queue: takes the next case from it (one client and portal at a time
across every desk), runs it and records it in the office store, and beats every few seconds. When
a desk stops (killed, crashed, switched off), its case goes back to the queue once its beat is
stale, and the next desk resumes the run from the office store (sign in again, reopen the draft,
check the applications list before any second submit). Needs PORTAL_DESK_DATABASE_URL. Logins come
from this desk's own vault. Ctrl-C stops taking cases; the cases the desk holds finish first (a run
waiting for the clerk too, until it is answered or its wait runs out).

  --model rules|anthropic     planner (default rules)
  --approve ask|office|all|none  gated actions: ask on this terminal (default); office: any clerk of the office
                              answers (approvals and codes are rows in the office database: "portal-desk waits"),
                              and a bot check waits for a clerk at this desk to take the portal over (any desk
                              may decline it); all/none are for demos and tests
  --slots N                   cases this desk works on at once (default 1, at most 8); a run waiting for
                              the clerk holds no slot: the desk takes the next case meanwhile
  --lab-url URL               lab portals: the lab every desk shares (as "portal-desk lab" prints);
                              without it each desk starts a lab of its own
  --heartbeat SECONDS         how often this desk beats (default 2)
  --stale SECONDS             a desk silent this long has stopped; its case goes back (default 15)
  --drain SECONDS             stop once the queue has been empty this long (default: run until stopped)
  --otp-command CMD           a shell command that prints a one-time code (tests)
  --max-steps N, --time-limit SECONDS   as for "run"
  --no-route                  the planner decides every page even where a learned route exists (see "portal-desk routes")
  --headed                    show the browser windows (a clerk taking a run over works in its window)

The desk's name in the office is $PORTAL_DESK_NAME, else the machine's host name.`;

export async function workerCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    model: { type: 'string' },
    approve: { type: 'string' },
    slots: { type: 'string' },
    'lab-url': { type: 'string' },
    heartbeat: { type: 'string' },
    stale: { type: 'string' },
    drain: { type: 'string' },
    'otp-command': { type: 'string' },
    'max-steps': { type: 'string' },
    'time-limit': { type: 'string' },
    headed: { type: 'boolean' },
    'no-route': { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const planner = oneOf('model', values.model, PLANNER_KINDS, 'rules');
  const approveChoice = oneOf('approve', values.approve, ['ask', 'office', 'all', 'none'] as const, 'ask');
  const approveMode = approveChoice === 'office' ? 'ask' : approveChoice;
  const slots = positiveInt('slots', values.slots, 1, 8);
  const heartbeatMs = positiveInt('heartbeat', values.heartbeat, 2, 60) * 1000;
  const staleMs = positiveInt('stale', values.stale, 15, 3600) * 1000;
  if (staleMs <= heartbeatMs) throw new UsageError('--stale must be longer than --heartbeat');
  const drainMs = values.drain === undefined ? undefined : positiveInt('drain', values.drain, 1, 86_400) * 1000;
  const limits = {
    maxSteps: positiveInt('max-steps', values['max-steps'], 40, 100),
    timeLimitMs: positiveInt('time-limit', values['time-limit'], 400, 3600) * 1000,
  };
  const demo = new DemoLoader();
  const external = values['lab-url'] === undefined ? undefined : await demo.running(values['lab-url']);
  const url = officeUrl('worker');
  try {
    const shops = loadPortalProfile('shops');
    if (planner === 'adversary') await demo.prepare([shops]);
    createPlanner(planner, shops, {}, process.env, demo);
  } catch (err) {
    if (err instanceof AnthropicConfigError) throw new UsageError(err.message);
    throw err;
  }

  const log = (line: string) => process.stderr.write(`${line}\n`);
  const { vault, loginStates } = await openCommandVault();
  const store = await openOfficeStore(url, defaultDbPath());
  // One browser per host mapping, relaunched when it dies: the run it killed stops interrupted, the next cases go on.
  const browsers = new BrowserKeeper<string>(
    (rules) => launchChromium({ headless: !values.headed, hostResolverRules: rules || undefined }),
    () => log('worker: the browser stopped; the next case starts a new one'),
  );
  const browserFor = (rules: string | undefined): Promise<Browser> => browsers.get(rules ?? '');
  let worker: OfficeWorker | undefined;
  let waits: OfficeWaits | undefined;
  const queue = await openOfficeQueue(url, { supervise: true, log }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(EXIT.notDone);
    log('worker: stopping: no new case is taken; the cases this desk holds finish, those waiting for a clerk once answered (Ctrl-C again to stop now)');
    worker?.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await store.markInterrupted();
    const warning = autoApprovalWarning(approveMode);
    if (warning) log(warning);
    const deskName = officeDeskName();
    waits = approveChoice === 'office' ? await OfficeWaits.open(url) : undefined;
    // Runs waiting for the clerk hold no slot, so the terminal may ask about two at once: each question names its case.
    const names = new Map<string, string>();
    const name = (runId: string) => names.get(runId);
    const terminalApprovals = new TerminalApprovals(approveMode, log, name);
    const terminalInputs = new TerminalInputs(values['otp-command'], {}, name);
    const execute: CaseExecutor = async (caseFile: CaseFile, resume, { onStart, onStatus }) => {
      // Office waits name the desk holding the browser and the case they are for.
      const here = { id: worker?.deskId ?? deskName, name: deskName, clientId: caseFile.clientId, portal: caseFile.portal, caseId: caseFile.caseId };
      const approvals = waits ? waits.approvals(here) : terminalApprovals;
      const inputs = waits && values['otp-command'] === undefined ? waits.inputs(here) : terminalInputs;
      const base = loadPortalProfile(caseFile.portal);
      await demo.prepare([base]);
      const lab = demo.portalId(base);
      let profile = base;
      let rules: string | undefined;
      let layout: string | undefined;
      if (lab && external) {
        profile = external.bind(base);
        rules = external.hostResolverRules;
      } else if (lab) {
        const bound = await demo.bind(base);
        profile = bound.profile;
        rules = bound.lab?.hostResolverRules;
        layout = bound.lab?.variant(caseFile.clientId).layout;
      }
      const finished = await executeRun(
        {
          store,
          browser: await browserFor(rules),
          approvals,
          inputs,
          credentials: new CredentialChain(lab ? [vault, demo.credentials] : [vault]),
          loginStates,
          demo,
          ...(waits ? { takeOvers: waits.takeOvers(here) } : {}),
          ...routesFor(store, { noRoute: values['no-route'] }),
        },
        {
          caseFile,
          profile,
          planner,
          approveMode,
          layout,
          limits,
          runId: resume?.runId,
          onStart: (runId) => {
            names.set(runId, `case ${caseFile.caseId}, client ${caseFile.clientId}`);
            onStart(runId);
            log(`[${caseFile.caseId}] run ${runId} ${resume ? 'resumed' : 'started'} at desk ${worker?.deskId ?? ''}`);
          },
          listener: {
            log: (line) => log(`[${caseFile.caseId}] ${line}`),
            step: (step) => formatStep(step).forEach((line) => log(`[${caseFile.caseId}] ${line}`)),
            status: (status) => onStatus(status),
          },
        },
      );
      names.delete(finished.runId);
      log(`[${caseFile.caseId}] ${finished.status === 'done' ? `DONE: ${finished.reason}` : `NOT DONE (${finished.status}): ${finished.reason}`}`);
      return { runId: finished.runId, status: finished.status, reason: finished.reason, applicationNumber: finished.applicationNumber };
    };
    worker = new OfficeWorker({ queue, store, url, execute, slots, heartbeatMs, staleMs, exitWhenIdleMs: drainMs, log, deskName });
    log(`worker: desk ${worker.deskId} joined the office queue (${slots} slot(s), model ${planner}, store ${store.path})`);
    await worker.run();
    const done = worker.outcomes.filter((o) => o.outcome === 'done').length;
    log(`worker: desk ${worker.deskId} stopped after ${worker.outcomes.filter((o) => o.outcome !== 'deferred').length} case(s), ${done} done`);
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Each part gets a bounded time to close, so a wedged browser or connection cannot keep a stopped
    // desk from leaving; what did not close is named in the log.
    await closing('the browsers', browsers.closeAll(), log);
    await closing('the office waits', waits?.close(), log);
    await closing('the office queue', queue.close(), log);
    await closing('the office store', store.close(), log);
    await closing('the lab', demo.stop(), log);
  }
}

const CLOSE_MS = 15_000;

async function closing(what: string, work: Promise<unknown> | undefined, log: (line: string) => void): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_MS)));
  const started = Date.now();
  const result = await Promise.race([work.then(() => 'closed' as const, () => 'closed' as const), late]);
  clearTimeout(timer);
  if (result === 'late') log(`worker: ${what} did not close within ${CLOSE_MS / 1000} s; the desk leaves without it`);
  else if (Date.now() - started > 5_000) log(`worker: ${what} took ${Math.round((Date.now() - started) / 1000)} s to close`);
}
