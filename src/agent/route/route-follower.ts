import { Action } from '../../shared/action';
import type { PortalProfile } from '../../shared/portal-profile';
import type { Route, RouteStep, StepSource } from '../../shared/route';
import type { StepAction } from '../../shared/run';
import { FieldNames } from '../decide/rules/field-names';
import type { CaseView, PlanInput, PlanResult, Planner } from '../decide/planner';
import { compareSignature, optionWords, Scrubber } from './page-signature';
import { learnStep, resolveStep, type CaseValues } from './route-steps';

/** One decided turn of this run, as the route sees it (joined with the step log after the run). */
export interface RouteTraceEntry {
  /** The step index the loop gave (`PlanInput.step`). */
  index: number;
  source: StepSource;
  /** The route step followed (route turns), or the step learned from the planner's turn on this live read. */
  step?: RouteStep;
  /** Route turns: which step of the route. */
  routeStep?: number;
  /** Planner turns while a route was followed: why the route did not answer this page. */
  why?: string;
  /** Planner turns: why the turn could not become a route step (a page with errors, an `ask`...). */
  notLearned?: string;
}

interface RouteFollowerOptions {
  /** The route of this portal and task (a retired one is not followed, but its version counts on). */
  route: Route | null;
  profile: PortalProfile;
}

/**
 * The route-following planner: a decorator around the run's planner (rules, Claude). On each read
 * it checks the page against the route's next steps; when one matches, it resolves that step's
 * actions to this read's controls by identity and answers with them, without calling the planner.
 * When the page or a control does not match, the planner decides that step. Either way the loop
 * sends the turn through the guard, approvals, commit gate and step log; the result's `source`
 * says where it came from. After a route action fails (blocked, an error, not completed), the rest
 * of the run goes to the planner. The trace is what the run service learns from once the run ends.
 */
export class RouteFollower implements Planner {
  readonly id: string;
  readonly description: string;
  readonly trace: RouteTraceEntry[] = [];
  private caseView: CaseView | undefined;
  private names: FieldNames | undefined;
  private scrub: Scrubber | undefined;
  private scrubKey = '';
  /** Option labels the portal showed in this run (see {@link Scrubber}). */
  private readonly portalWords = new Set<string>();
  private cursor = 0;
  private lastWasRoute = false;
  /** Set once a route action did not complete: the route is not trusted for the rest of the run. */
  private brokenAt: string | undefined;
  private readonly follow: Route | null;

  constructor(
    readonly inner: Planner,
    private readonly options: RouteFollowerOptions,
  ) {
    this.id = inner.id;
    this.follow = options.route?.status === 'active' ? options.route : null;
    this.description = this.follow
      ? `${inner.description}; following learned route v${this.follow.version} (${this.follow.steps.length} pages) where the pages match`
      : inner.description;
  }

  get route(): Route | null {
    return this.options.route;
  }

  /** Turns that came from the route and from the planner so far. */
  get counts(): { route: number; planner: number } {
    return {
      route: this.trace.filter((t) => t.source === 'route').length,
      planner: this.trace.filter((t) => t.source === 'planner').length,
    };
  }

  /** Why the route stopped being followed, if a route action failed. */
  get broken(): string | undefined {
    return this.brokenAt;
  }

  async start(caseView: CaseView): Promise<void> {
    this.caseView = caseView;
    this.names = new FieldNames(Object.keys(caseView.fields), caseView.aliases);
    await this.inner.start(caseView);
  }

  async decide(input: PlanInput): Promise<PlanResult> {
    if (!this.caseView || !this.names) throw new Error('RouteFollower.decide called before start');
    const values: CaseValues = { ...this.caseView.fields, ...input.clerkFields };
    for (const word of optionWords(input.observation)) this.portalWords.add(word);
    const scrub = this.scrubberFor(values);
    if (this.lastWasRoute) this.checkPrevious(input.previous);
    this.lastWasRoute = false;

    let why: string | undefined;
    if (this.follow && !this.brokenAt) {
      const attempt = this.fromRoute(input, values, scrub);
      if ('actions' in attempt) {
        this.lastWasRoute = true;
        return { turn: { reasoning: attempt.reasoning, actions: attempt.actions }, call: null, source: 'route' };
      }
      why = attempt.why;
    } else if (this.follow) {
      why = this.brokenAt;
    }

    const result = await this.inner.decide(input);
    const entry: RouteTraceEntry = { index: input.step, source: 'planner', ...(why ? { why } : {}) };
    const actions = Array.isArray(result.turn?.actions) ? result.turn.actions.filter((a) => Action.safeParse(a).success) : [];
    if (actions.length === result.turn?.actions?.length) {
      const learned = learnStep({ observation: input.observation, actions, values, names: this.names, scrub, cover: this.caseView });
      if ('step' in learned) entry.step = learned.step;
      else entry.notLearned = learned.unlearnable;
    } else {
      entry.notLearned = 'the turn held a malformed action';
    }
    this.trace.push(entry);
    return { ...result, source: 'planner' };
  }

  private fromRoute(input: PlanInput, values: CaseValues, scrub: Scrubber): { actions: Action[]; reasoning: string } | { why: string } {
    const route = this.follow!;
    const observation = input.observation;
    if (observation.errors.length > 0) return { why: `the page shows ${observation.errors.length} error(s)` };
    let firstDifference: string | undefined;
    for (let k = this.cursor; k < route.steps.length; k++) {
      const step = route.steps[k]!;
      const same = compareSignature(step.signature, observation, scrub);
      if (!same.same) {
        firstDifference ??= same.difference;
        continue;
      }
      const resolved = resolveStep({ step, observation, values, names: this.names!, cover: this.caseView!, scrub, profile: this.options.profile });
      if ('mismatch' in resolved) return { why: `route page ${k + 1}: ${resolved.mismatch}` };
      // A step cut at the turn's action cap is matched again on the next read (what is done is left out then).
      if (!resolved.partial) this.cursor = k + 1;
      this.trace.push({ index: input.step, source: 'route', step, routeStep: k });
      const title = observation.flowStep ?? observation.headings[0] ?? observation.title;
      return {
        actions: resolved.actions,
        reasoning: `Learned route v${route.version}, page ${k + 1} of ${route.steps.length} ("${title}"): ${resolved.actions.length} action(s) by the route, no planner call.`,
      };
    }
    return { why: this.cursor >= route.steps.length ? 'the route has no more pages' : `the page is not the route's next page (${firstDifference ?? 'no match'})` };
  }

  /** A route turn whose actions did not all complete: the route is not followed any further. */
  private checkPrevious(previous: StepAction[]): void {
    const failed = previous.find((a) => a.outcome.status !== 'done');
    if (!failed) return;
    const last = [...this.trace].reverse().find((t) => t.source === 'route');
    if (last) last.step = undefined;
    this.brokenAt = `a route action did not complete (${failed.outcome.status}${failed.outcome.message ? `: ${failed.outcome.message}` : ''}); the planner takes over`;
  }

  private scrubberFor(values: CaseValues): Scrubber {
    const key = `${JSON.stringify(values)}\n${this.portalWords.size}`;
    if (!this.scrub || key !== this.scrubKey) {
      this.scrub = new Scrubber(Object.values(values), this.portalWords);
      this.scrubKey = key;
    }
    return this.scrub;
  }
}
