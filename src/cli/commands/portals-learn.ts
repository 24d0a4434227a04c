import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../agent/browser/chromium';
import { loadCaseFile } from '../../agent/case/case-files';
import { loadPortalProfile } from '../../agent/case/portal-profiles';
import { draftProfile, heldAnswerOf, learningProfile, type HeldAnswer, type ProfileDraft } from '../../agent/portal/profile-draft';
import type { ApprovalGate, ApprovalRequest } from '../../shared/clerk';
import type { CaseFile } from '../../shared/case-file';
import type { StepRecord } from '../../shared/run';
import { executeRun } from '../../service/run-service';
import { defaultDbPath, requestMapsOf } from '../../store';
import { CredentialChain } from '../../vault';
import { CASE_RUN_OPTIONS, oneOf, parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { autoApprovalWarning, TerminalApprovals, TerminalInputs } from '../clerk-terminal';
import { DemoLoader } from '../demo-portals';
import { formatStep } from '../step-log';
import { openDeskStore } from '../store-opening';
import { promptLine } from '../terminal-prompt';
import { openCommandVault } from '../vault-opening';
import { parseAnswers } from './run';

const HELP = `portal-desk portals learn --id ID --start-url URL --case FILE [options]

Adds a portal from one supervised run. The run starts with a profile that knows only the start
address: every request that can change state waits for your approval, as for any unknown portal.
From what the run saw, a profile is drafted: the portal's host, the sign-in form's labels, the
final-review and confirmation pages, the application-number pattern, the submission address and
the section saves you let through (method, path, field names; never a value of the case, a login
or a token). The draft is printed with where each entry came from, and written to --out only when
you say so (--yes, or y at the prompt).

  --id ID                     the new portal's id (lower-case letters, digits and dashes); the case's "portal"
  --name NAME                 the portal's name as clerks know it (default: the id)
  --start-url URL             the portal's start address (its host is the only one the run may reach)
  --case FILE                 a real client's case for this portal (the run files it: approve with care)
  --approve ask|all           approvals: ask on the terminal (default); all for demos and tests
  --out DIR                   where the drafted profile is written as ID.json (never over an existing file)
  --yes                       write the draft without asking
  --lab-url URL               lab portals only: the lab running there
  --db PATH                   the run store (default: ${defaultDbPath()})
  --otp-command CMD           a shell command that prints the one-time code (tests)
  --answer FIELD=VALUE        a clerk answer given in advance (repeatable)
  --max-steps N               step cap (default 40, at most 100)
  --time-limit SECONDS        time limit on the agent's working time (default 400)
  --headed                    show the browser window
  --json                      print the draft and its notes as JSON on stdout`;

/** The approval gate of the learning run: the clerk answers as always; each held request and the answer are kept for the draft. */
class LearningApprovals implements ApprovalGate {
  readonly held: HeldAnswer[] = [];
  constructor(private readonly inner: ApprovalGate) {}

  async request(req: ApprovalRequest) {
    const decision = await this.inner.request(req);
    const kept = heldAnswerOf(req, decision);
    if (kept) this.held.push(kept);
    return decision;
  }
}

export async function portalsLearnCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CASE_RUN_OPTIONS,
    id: { type: 'string' },
    name: { type: 'string' },
    'start-url': { type: 'string' },
    out: { type: 'string' },
    yes: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (!values.id || !values['start-url'] || !values.case) throw new UsageError('portals learn needs --id ID, --start-url URL and --case FILE (see "portal-desk portals learn --help")');
  const approveMode = oneOf('approve', values.approve, ['ask', 'all'] as const, 'ask');
  const limits = {
    maxSteps: positiveInt('max-steps', values['max-steps'], 40, 100),
    timeLimitMs: positiveInt('time-limit', values['time-limit'], 400, 3600) * 1000,
    clerkWaitMs: 1800 * 1000,
  };
  const answers = parseAnswers(values.answer);
  let given;
  try {
    given = learningProfile(values.id, values['start-url'], values.name);
  } catch (err) {
    throw new UsageError(`--id and --start-url do not make a profile (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): give an id of lower-case letters, digits and dashes and a web address such as https://portal.gov.example/`);
  }
  const caseFile = loadCaseFile(values.case);
  if (caseFile.portal !== given.id) throw new UsageError(`the case ${caseFile.caseId} is for portal "${shownArg(caseFile.portal)}", not "${shownArg(given.id)}": learn a portal from one of its own cases`);
  const out = values.out === undefined ? undefined : resolve(values.out);
  if (out && existsSync(join(out, `${given.id}.json`))) throw new UsageError(`${join(out, `${given.id}.json`)} exists already; a draft is never written over a profile (choose another --out)`);

  const demo = new DemoLoader();
  await demo.prepare([given], values['lab-url'] !== undefined);
  const external = values['lab-url'] === undefined ? undefined : await demo.running(values['lab-url']);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const dbPath = values.db ?? defaultDbPath();
  const { vault, loginStates } = await openCommandVault();
  const store = await openDeskStore(dbPath, 'write');
  let browser: Browser | undefined;
  let draft: ProfileDraft;
  try {
    await store.markInterrupted();
    const maps = requestMapsOf(store);
    const taught = await maps.listMap(given.id).finally(() => maps.close());
    if (taught.length > 0) {
      throw new UsageError(`the store ${dbPath} has ${taught.length} learned request map entries for "${given.id}"; a learning run starts from an empty map (use another --db, or "portal-desk portals map remove")`);
    }
    const { profile, lab } = external ? { profile: external.bind(given), lab: undefined } : await demo.bind(given);
    if (lab) lab.configure(caseFile.clientId, { layout: 'original' });
    log(`learn: ${given.id} from ${profile.startUrl}: every request that can change state waits for approval`);
    const warning = autoApprovalWarning(approveMode);
    if (warning) log(warning);
    const credentials = new CredentialChain(lab || external ? [vault, demo.credentials] : [vault]);
    const approvals = new LearningApprovals(new TerminalApprovals(approveMode, log));
    browser = await launchChromium({ headless: !values.headed, hostResolverRules: lab?.hostResolverRules ?? external?.hostResolverRules });
    const finished = await executeRun(
      { store, browser, approvals, inputs: new TerminalInputs(values['otp-command'], answers), credentials, loginStates, demo },
      {
        caseFile,
        profile,
        planner: 'rules',
        approveMode,
        limits,
        onStart: (runId) => log(`run id: ${runId}`),
        listener: { log, step: (step) => formatStep(step).forEach((line) => log(line)), status: (status, reason) => log(`== ${status}${reason ? `: ${reason}` : ''}`) },
      },
    );
    // Its profile knows no confirmation page yet, so a learning run never ends `done`: what it saw is what counts.
    log(`learning run ${finished.runId} ended ${finished.status} (a learning run cannot prove done: its profile does not know the confirmation page yet): ${finished.reason}`);
    const steps: StepRecord[] = [];
    for (let i = 0; i < finished.steps; i++) {
      const step = await store.getStep(finished.runId, i);
      if (step) steps.push(step);
    }
    const login = await credentials.get(caseFile.clientId, given.id);
    draft = draftProfile({
      given,
      boundStartUrl: profile.startUrl,
      steps,
      held: approvals.held,
      secrets: [...caseValues(caseFile), ...(login ? [login.username, login.password] : [])],
    });
  } finally {
    await browser?.close().catch(() => undefined);
    await store.close();
    await demo.stop();
  }

  if (values.json) console.log(JSON.stringify(draft, null, 2));
  else console.log(summary(draft));
  if (!draft.profile || draft.problems.length > 0) {
    log('No profile drafted: see the problems above. Nothing was written.');
    return EXIT.notDone;
  }
  if (!out) {
    log('Not written: give --out DIR to keep the draft.');
    return EXIT.ok;
  }
  const yes = values.yes === true || /^y(es)?$/i.test((await promptLine(`\nWrite this profile to ${join(out, `${given.id}.json`)}? [y/N] `)) ?? '');
  if (!yes) {
    log('Not written (no --yes, and no "y" on the terminal).');
    return EXIT.notDone;
  }
  mkdirSync(out, { recursive: true });
  const path = join(out, `${given.id}.json`);
  writeFileSync(path, `${JSON.stringify(draft.profile, null, 2)}\n`, { flag: 'wx' });
  // The same load checks as any profile: the file as written, read back.
  loadPortalProfile(given.id, [out]);
  log(`Written: ${path} (it loads as any profile does). Run a case with PORTAL_DESK_PORTALS=${out}.`);
  return EXIT.ok;
}

/** Every value of the case, as text: none of them may enter a profile. */
function caseValues(caseFile: CaseFile): string[] {
  return Object.values(caseFile.fields)
    .filter((v) => v !== null && v !== undefined && typeof v !== 'boolean')
    .map((v) => String(v));
}

function summary(draft: ProfileDraft): string {
  const lines = ['Drafted profile (each entry with where it came from):'];
  for (const n of draft.notes) lines.push(`  ${n.entry}\n      from ${n.from}`);
  if (draft.left.length) {
    lines.push('Seen in the run, left out of the draft:');
    for (const l of draft.left) lines.push(`  - ${l}`);
  }
  if (draft.problems.length) {
    lines.push('Problems:');
    for (const p of draft.problems) lines.push(`  ! ${p}`);
  }
  if (draft.profile) lines.push('Profile:', JSON.stringify(draft.profile, null, 2));
  return lines.join('\n');
}
