import type { Observation } from '../../../shared/observation';
import type { PageRead } from '../../observe/page-read';
import type { DoneProof } from '../done-proof';
import type { HandlerOutcome } from '../outcomes';
import type { RunContext } from '../run-context';

/** One read of the page as the portal handlers see it. */
export interface PortalTurn {
  read: PageRead;
  /** The read's observation with the run's secrets redacted. */
  observation: Observation;
  /** Code signed in, or typed a sign-in code, in the previous step. */
  afterSignIn: boolean;
  /** Proof of `done` on this page, worked out once for every handler that asks. */
  proof(): Promise<DoneProof>;
}

/**
 * One portal reality code handles before the model is asked (a bot check, a cookie banner, a
 * sign-in page...). A handler looks at the read and answers `pass`, `handled` (with the step the
 * driver records) or `end` (with how the run ends); it never throws to end a run. The order of
 * `PORTAL_HANDLERS` is the order they look; the first that does not pass decides the step.
 */
export interface PortalHandler {
  /** Names the concern in docs and tests, e.g. "bot-check". */
  readonly id: string;
  handle(turn: PortalTurn, run: RunContext): Promise<HandlerOutcome>;
}
