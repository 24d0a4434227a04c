/** An error as one line for a log or a reason: the first line of its message (Playwright adds call logs below it). */
export function errorText(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}

/** An error's whole message, call log and all, where the text is read further (or shown in full). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
