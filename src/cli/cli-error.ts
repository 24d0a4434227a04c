import { PortalDeskError } from '../base/portal-desk-error';

/**
 * A problem with what the user asked for, or with a file, store or vault it names that cannot be
 * used: printed as one line, exit code 2, nothing runs.
 */
export class UsageError extends PortalDeskError {
  constructor(message: string) {
    super(message);
  }
}

/** The exit codes every command keeps to (README, "Exit codes"). */
export const EXIT = {
  /** Done with proof; intact; printed or written. */
  ok: 0,
  /** Not done (failed, blocked, denied, a limit); a chain that is broken (tampered). */
  notDone: 1,
  /** Bad input or an unusable store, file or vault: nothing ran. */
  badInput: 2,
} as const;
