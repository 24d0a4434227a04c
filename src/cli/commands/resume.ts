import { z } from 'zod';
import { launchChromium } from '../../agent/browser/chromium';
import { CaseFile } from '../../shared/case-file';
import { PortalProfile } from '../../shared/portal-profile';
import { FINAL_STATUSES, type RunSummary } from '../../shared/run';
import { PLANNER_KINDS } from '../../service/planners';
import { executeRun } from '../../service/run-service';
import { defaultDbPath } from '../../store';
import { ClientBusyError } from '../../store/client-busy';
import { CredentialChain } from '../../vault';
import { oneOf, parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { autoApprovalWarning, TerminalApprovals, TerminalInputs } from '../clerk-terminal';
import { formatStep } from '../step-log';
import { openDeskStore } from '../store-opening';
import { openCommandVault } from '../vault-opening';
import { parseAnswers } from './run';
import { DemoLoader } from '../demo-portals';

const HELP = `portal-desk resume RUN_ID [options]

Continues a run whose process stopped (killed, crashed, the machine went down) from what the
store holds: the case file, the portal profile, the clerk's answers and the progress record.
Step numbers go on where they stopped. Before any submit the portal's applications list is
checked, so an application that already went through is never submitted twice.
A run the model service stopped (overloaded, a refusal, a cut-off reply) is interrupted too, and
resumes the same way. A run that is done, failed or blocked is final and is not resumed.

  --db PATH                   the run store (default: ${defaultDbPath()})
  --approve ask|all|none      gated actions: ask on the terminal (default); all/none are for demos and tests
  --otp-command CMD           a shell command that prints the one-time code (tests); default: ask on the terminal
  --answer FIELD=VALUE        a clerk answer given in advance for a missing case field (repeatable)
  --lab-url URL               lab portals only: the lab already running there (the run's lab must still be up
                              for its drafts and sessions; without it a fresh lab starts)
  --max-steps N               steps this life may take (default 40, at most 100)
  --time-limit SECONDS        time limit of this life (default 400)
  --headed                    show the browser window
  --json                      print a summary as JSON on stdout`;

/** What `run` stored in the run record's caseJson. */
const StoredCase = z.object({
  caseFile: CaseFile,
  profile: PortalProfile,
  planner: z.enum(PLANNER_KINDS),
  layout: z.string().optional(),
});

export async function resumeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      db: { type: 'string' },
      approve: { type: 'string' },
      'otp-command': { type: 'string' },
      answer: { type: 'string', multiple: true },
      'lab-url': { type: 'string' },
      'max-steps': { type: 'string' },
      'time-limit': { type: 'string' },
      headed: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('give exactly one RUN_ID (see "portal-desk resume --help")');
  const runId = positionals[0]!;
  const approveMode = oneOf('approve', values.approve, ['ask', 'all', 'none'] as const, 'ask');
  const limits = {
    maxSteps: positiveInt('max-steps', values['max-steps'], 40, 100),
    timeLimitMs: positiveInt('time-limit', values['time-limit'], 400, 3600) * 1000,
  };
  const answers = parseAnswers(values.answer);
  const demo = new DemoLoader();
  const external = values['lab-url'] === undefined ? undefined : await demo.running(values['lab-url']);

  const dbPath = values.db ?? defaultDbPath();
  const { vault, loginStates } = await openCommandVault();
  const store = await openDeskStore(dbPath, 'write', { mustExist: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    await store.markInterrupted();
    const run = await store.getRun(runId);
    if (!run) throw new UsageError(`there is no run ${shownArg(runId)} in ${dbPath}`);
    if (FINAL_STATUSES.includes(run.status)) {
      throw new UsageError(
        `run ${runId} is already ${run.status}${run.reason ? ` (${run.reason})` : ''}; a final run is not resumed. ` +
          `Start a new run of case ${run.caseId} with "portal-desk run" if it must be filed again.`,
      );
    }
    // Live after markInterrupted: its process is still there. The store refuses it again, atomically, when the run starts (resumeRun).
    if (run.status !== 'interrupted' && run.status !== 'queued') throw new ClientBusyError(run.clientId, run.portal, { id: runId, owner_pid: null }, runId);
    const stored = StoredCase.safeParse(parseStoredJson(run.caseJson));
    if (!stored.success) throw new UsageError(`run ${runId} does not hold a case file and portal profile this version can resume`);
    const { caseFile, planner } = stored.data;

    let profile = stored.data.profile;
    let hostResolverRules: string | undefined;
    await demo.prepare([profile]);
    if (demo.portalId(profile)) {
      const base = withoutLabPort(profile);
      if (external) {
        profile = external.bind(base);
        hostResolverRules = external.hostResolverRules;
      } else {
        const bound = await demo.bind(base);
        profile = bound.profile;
        hostResolverRules = bound.lab?.hostResolverRules;
        bound.lab?.configure(caseFile.clientId, { layout: stored.data.layout === 'redesigned' ? 'redesigned' : 'original' });
        log(`lab: the lab this run used stopped with its process; a fresh lab starts on ${profile.startUrl} (its drafts and sessions are empty)`);
      }
    } else if (external) {
      throw new UsageError(`--lab-url applies to lab portals only; run ${runId} is on "${profile.id}"`);
    }
    const warning = autoApprovalWarning(approveMode);
    if (warning) log(warning);
    log(`resume: run ${runId}, case ${caseFile.caseId} (client ${caseFile.clientId}) on ${profile.id}, from step ${run.stepCount}, store ${dbPath}`);

    const browser = await launchChromium({ headless: !values.headed, hostResolverRules });
    try {
      const finished = await executeRun(
        {
          store,
          browser,
          approvals: new TerminalApprovals(approveMode, log),
          inputs: new TerminalInputs(values['otp-command'], answers),
          credentials: new CredentialChain(demo.portalId(profile) ? [vault, demo.credentials] : [vault]),
          loginStates,
          demo,
        },
        {
          caseFile,
          profile,
          planner,
          approveMode,
          layout: stored.data.layout,
          limits,
          runId,
          listener: {
            log,
            step: (step) => formatStep(step).forEach((line) => log(line)),
            status: (status, reason) => log(`== ${status}${reason ? `: ${reason}` : ''}`),
          },
        },
      );
      const after = await store.getRun(runId);
      const summary: RunSummary = {
        runId,
        caseId: caseFile.caseId,
        status: finished.status,
        reason: finished.reason,
        steps: finished.steps,
        applicationNumber: finished.applicationNumber,
        usage: after?.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        approvals: finished.approvals,
        wallMs: finished.wallMs,
      };
      log(finished.status === 'done' ? `DONE: ${finished.reason}` : `NOT DONE (${finished.status}): ${finished.reason}`);
      if (values.json) console.log(JSON.stringify(summary, null, 2));
      return finished.status === 'done' ? EXIT.ok : EXIT.notDone;
    } finally {
      await browser.close().catch(() => undefined);
    }
  } finally {
    store.close();
    await demo.stop();
  }
}

/** The profile as it was before a lab port was bound into it (the lab may now run on another port). */
function withoutLabPort(profile: PortalProfile): PortalProfile {
  const strip = (url: string): string => {
    const u = new URL(url);
    if (u.hostname.endsWith('.example')) u.port = '';
    return u.toString();
  };
  return {
    ...profile,
    startUrl: strip(profile.startUrl),
    allowedHosts: profile.allowedHosts.map((h) => (h.split(':')[0]!.endsWith('.example') ? h.split(':')[0]! : h)),
    challengeHosts: profile.challengeHosts.map((h) => (h.split(':')[0]!.endsWith('.example') ? h.split(':')[0]! : h)),
    ...(profile.applicationsUrl ? { applicationsUrl: strip(profile.applicationsUrl) } : {}),
  };
}

/** The run record's stored case; what cannot be parsed is refused by the schema check after it. */
function parseStoredJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
