/** A problem with what the user asked for: printed as one line, exit code 2, nothing runs. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT = { ok: 0, notDone: 1, badInput: 2 } as const;
