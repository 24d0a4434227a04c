import type { Page } from 'playwright-core';
import type { CaseFile } from '../../shared/case-file';
import type { ApprovalGate, InputSource, TakeOverDesk } from '../../shared/clerk';
import type { CredentialSource, LoginStateStore } from '../../shared/credentials';
import type { PortalProfile } from '../../shared/portal-profile';
import type { RunRecorder } from '../../shared/recorder';
import type { RunStatus, StepRecord } from '../../shared/run';
import type { Planner } from '../decide/planner';
import type { CommitGate } from '../guard/commit-gate';
import type { Observer } from '../observe/page-read';
import type { Receipt } from '../portal/receipt';
import type { RunLimits } from './limits';

/** Live notifications for a console or a terminal. */
export interface RunListener {
  step?(step: StepRecord): void;
  status?(status: RunStatus, reason: string | undefined): void;
  log?(line: string): void;
}

/** Where the acknowledgement of a submission is kept (the store holds only its hash and size). */
export interface ReceiptKeeper {
  /** Keeps the bytes; answers where, for the step log (e.g. `receipts/<sha256>.html`). */
  keep(receipt: Receipt & { sha256: string; runId: string; applicationNumber: string }): Promise<string>;
}

export interface RunLoopOptions {
  runId: string;
  page: Page;
  profile: PortalProfile;
  caseFile: CaseFile;
  planner: Planner;
  observer: Observer;
  recorder: RunRecorder;
  approvals: ApprovalGate;
  inputs: InputSource;
  /** Where the clerk takes the portal over (a bot check pauses for it; the clerk may ask). Without one a bot check ends the run `blocked`. */
  takeOvers?: TakeOverDesk;
  credentials: CredentialSource;
  limits?: Partial<RunLimits>;
  listener?: RunListener;
  /** The step index to start at (a resumed run continues its numbering). */
  firstStep?: number;
  /** Clerk answers already given in an earlier life of this run. */
  clerkValues?: Record<string, string>;
  /** Saved login state per client and portal: refreshed after every sign-in by code. */
  loginStates?: LoginStateStore;
  /** Keeps the receipt fetched once the confirmation shows. */
  receipts?: ReceiptKeeper;
  /**
   * The run's commit gate (installed below the page by `installWatchdogs`): the loop answers its
   * held requests (asking the clerk), tells it the page it is on and what is acting, and reads
   * back what it sent or refused.
   */
  gate: CommitGate;
  now?: () => Date;
  /** The run's waits on purpose (the outage handler's pause before it tries the portal again); default a timer. A test passes one that does not sleep. */
  wait?: (ms: number) => Promise<void>;
}
