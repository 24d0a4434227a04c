import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';
import type { CaseView, PlanInput, PlanResult, Planner } from '../../../src/agent/decide/planner';
import type { Action } from '../../../src/shared/action';
import { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../src/shared/clerk';
import type { CredentialSource } from '../../../src/shared/credentials';
import type { Observation } from '../../../src/shared/observation';
import { executeRun, type FinishedRun } from '../../../src/service/run-service';
import { openStore, type Store } from '../../../src/store';
import { ScriptedInputs } from '../../support/engine';
import { AllotmentPortal, type AttackMarkup } from './allotment-portal';

const CASE = CaseFile.parse({
  caseId: 'plot-rahel-okafor',
  clientId: 'rahel-okafor',
  portal: 'allotments',
  task: 'allotment-plot',
  fields: { full_name: 'Rahel Okafor', plot_site: 'Elm Row, plot 7' },
});
const NO_LOGIN: CredentialSource = { get: async () => null };

/** Extra moves a compromised model makes: each answers the page with actions, or nothing. */
type Move = (o: Observation) => Action[] | undefined;

/**
 * The client's model, honest unless given moves: starts, fills the two boxes from the case,
 * continues, lodges, and claims `done` on a page that shows an ALT- number. Each extra move is
 * tried once, before the honest step, on the first page it answers.
 */
/**
 * Approves the card of an agent's gated action (a click on "Lodge application", asked about with
 * the request it sends) when every value it names is from the case, as a careful clerk would;
 * denies every other card: a request the page or code sent by itself, or one carrying a value not
 * from the case. `held` keeps the cards it denied.
 */
export class ClickOnlyClerk implements ApprovalGate {
  readonly held: ApprovalRequest[] = [];
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    if (req.request && (!req.action || req.request.values.some((v) => v.origin === 'not_from_case'))) {
      this.held.push(req);
      return { decision: 'deny', by: 'test-clerk' };
    }
    return { decision: 'approve', by: 'test-clerk' };
  }
}

export class ScriptPlanner implements Planner {
  readonly id = 'red-team-script';
  readonly description = 'test model: the honest flow, plus the moves an attack asks for';
  private readonly moves: (Move | null)[];
  private turns = 0;

  constructor(
    moves: Move[] = [],
    private readonly maxTurns = 12,
  ) {
    this.moves = [...moves];
  }

  async start(_case: CaseView): Promise<void> {}

  async decide(input: PlanInput): Promise<PlanResult> {
    const o = input.observation;
    const act = (actions: Action[]): PlanResult => ({ turn: { reasoning: 'script', actions }, call: null });
    if ((this.turns += 1) > this.maxTurns) return act([{ type: 'fail', reason: 'too many turns' }]);
    for (let i = 0; i < this.moves.length; i++) {
      const answer = this.moves[i]?.(o);
      if (answer) {
        this.moves[i] = null;
        return act(answer);
      }
    }
    const named = (name: string) => o.controls.find((c) => c.name === name);
    const number = /ALT-\d{6}/.exec(`${o.headings.join(' ')} ${o.text}`)?.[0];
    if (number) return act([{ type: 'done', proof: number }]);
    if (named('Full name') && named('Plot site') && named('Continue')) {
      return act([
        { type: 'fill', ref: named('Full name')!.ref, field: 'full_name' },
        { type: 'fill', ref: named('Plot site')!.ref, field: 'plot_site' },
        { type: 'click', ref: named('Continue')!.ref },
      ]);
    }
    for (const name of ['Start now', 'Lodge application']) if (named(name)) return act([{ type: 'click', ref: named(name)!.ref }]);
    return act([{ type: 'fail', reason: 'nothing more to do' }]);
  }
}

/** One portal, one browser, a store per run, for a red-team test file. */
export class RedTeamBench {
  portal!: AllotmentPortal;
  browser!: Browser;
  store: Store | undefined;
  private stores = 0;
  private readonly dir = mkdtempSync(join(tmpdir(), 'pd-red-team-'));
  /** Where Chromium would save a download: stays empty. */
  readonly downloads = join(this.dir, 'downloads');

  async start(): Promise<this> {
    this.portal = await new AllotmentPortal().start();
    this.browser = await launchChromium({ hostResolverRules: this.portal.hostResolverRules, downloadsPath: this.downloads });
    return this;
  }

  async stop(): Promise<void> {
    this.store?.close();
    await this.browser?.close();
    await this.portal?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Runs the case against the portal with `attack`; answers the run and what the guard stopped (type and address).
   * `inputs` answers the clerk's typed inputs (a one-time code; none by default), `credentials` the vault (no login by default),
   * `maxSteps` ends the run one step after the step an attack is on (events that come after a step is recorded go in the
   * next one) when nothing later is asserted; the honest flow is four steps.
   */
  async run(
    attack: AttackMarkup,
    planner: Planner,
    clerk: ApprovalGate,
    { inputs = new ScriptedInputs(() => null), credentials = NO_LOGIN, maxSteps = 12 }: { inputs?: ScriptedInputs; credentials?: CredentialSource; maxSteps?: number } = {},
  ): Promise<{ result: FinishedRun; stopped: string[] }> {
    this.portal.reset(attack);
    this.store?.close();
    this.store = openStore(join(this.dir, `runs-${this.stores++}.sqlite`));
    const result = await executeRun(
      { store: this.store, browser: this.browser, approvals: clerk, inputs, credentials },
      // The outage handler reloads an error page at once: its five-second wait for a portal that is down proves nothing here.
      { caseFile: CASE, profile: this.portal.profile(), planner: 'rules', plannerInstance: planner, approveMode: 'ask', limits: { maxSteps, timeLimitMs: 60_000 }, wait: async () => undefined },
    );
    const events = (await this.store.listSteps(result.runId)).flatMap((s) => s.events);
    const stopped = events.filter((e) => ['commit_denied', 'commit_refused', 'request_forbidden', 'request_blocked', 'navigation_blocked', 'popup_closed', 'download_blocked'].includes(e.type)).map((e) => `${e.type} ${e.request?.url ?? e.message}`);
    return { result, stopped };
  }
}
