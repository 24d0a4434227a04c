import type { ReviewRow } from '../../shared/clerk';
import type { StepAction, StepEvent } from '../../shared/run';

/**
 * Everything a run remembers from one step to the next, in one object the driver owns and hands
 * to the portal handlers, the action pipeline and the gate's judge. Nothing else in the loop
 * keeps state between steps.
 */
export interface RunState {
  /** The index of the step being taken (a resumed run continues its numbering). */
  step: number;
  /** Clerk answers given in this run or an earlier life of it, by case field. */
  readonly clerkValues: Record<string, string>;
  /** What code saw since the last step was recorded: written into the next step. */
  readonly pendingEvents: StepEvent[];
  /** Lines told to the model at its next turn. */
  notes: string[];
  /** The model's reasoning for the turn being carried out, for the approval card. */
  turnReasoning: string | undefined;
  /** Where that turn came from: the planner, or the learned route (the card says which). */
  turnSource: 'route' | 'planner' | undefined;
  /** The actions of the last planned turn, with their outcomes, for the planner. */
  previous: StepAction[];
  signIns: number;
  approvalsGiven: number;
  /** Code signed in (or typed a sign-in code) in the previous step. */
  justSignedIn: boolean;
  /** The applications list was read since the last sign-in. */
  listChecked: boolean;
  /** The note that the applications list explained a second answered submission (one that filed nothing) is in the log. */
  answersExplained: boolean;
  /** Unreadable applications lists in a row right before a submit. */
  listFailures: number;
  /** Sections where code already saved the draft in this life of the run. */
  readonly checkpoints: Set<string>;
  receiptKept: boolean;
  /** Cookie banners and survey dialogs code declined in this life of the run. */
  interruptionsDeclined: number;
  /** Application numbers the portal showed before this run sent its submission: none of them proves it. */
  readonly numbersBeforeSubmission: Set<string>;
  /** The loop's own check before the final submit passed (applications list read): the next submission may go. */
  submissionCleared: boolean;
  /** The last picture of the page (a held navigation can keep a fresh one from being taken). */
  lastScreenshot: Uint8Array | null;
  /** A request the gate held was denied: the run ends once the action that caused it is recorded. */
  denial: string | undefined;
  /** The whole page as the clerk was first asked about it in this step (kept with the step). */
  gatedFullPage: Uint8Array | null;
  /** On a final-review page: its values beside the case (read from the step's observation), for a submission's card; null elsewhere. */
  review: ReviewRow[] | null;
  /** Time spent waiting for the clerk in this life of the run: not working time (the time limit leaves it out). */
  clerkWaitMs: number;
  /** A wait for the clerk ran out unanswered: the run ends `interrupted` with this reason (unless it is done). */
  waitExpired: string | undefined;
}

export function newRunState(firstStep: number, clerkValues: Record<string, string>): RunState {
  return {
    step: firstStep,
    clerkValues: { ...clerkValues },
    pendingEvents: [],
    notes: [],
    turnReasoning: undefined,
    turnSource: undefined,
    previous: [],
    signIns: 0,
    approvalsGiven: 0,
    justSignedIn: false,
    listChecked: false,
    answersExplained: false,
    listFailures: 0,
    checkpoints: new Set(),
    receiptKept: false,
    interruptionsDeclined: 0,
    numbersBeforeSubmission: new Set(),
    submissionCleared: false,
    lastScreenshot: null,
    denial: undefined,
    gatedFullPage: null,
    review: null,
    clerkWaitMs: 0,
    waitExpired: undefined,
  };
}
