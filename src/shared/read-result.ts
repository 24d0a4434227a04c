import { z } from 'zod';

/**
 * What a read-only task (a case's `read`, kind `status` or `extract`) brings back, typed. It is
 * recorded in the run's last step as a `read_result` event (this JSON) and said in the run's
 * reason, so replay and the report show it like any step.
 */

/** The status of one application, as the portal's applications list shows it. */
export const StatusResult = z.strictObject({
  kind: z.literal('status'),
  applicationNumber: z.string(),
  status: z.string(),
  /** The client reference the list shows beside it (registration number, consumer number…). */
  reference: z.string().nullable(),
  /** The date the list shows (YYYY-MM-DD where it reads as one). */
  submittedOn: z.string().nullable(),
  /** Who read it: code's rules, or the model (one extraction call). */
  readBy: z.enum(['rules', 'model']),
});
export type StatusResult = z.infer<typeof StatusResult>;

/** What an acknowledgement (or other named) page shows. */
export const ExtractResult = z.strictObject({
  kind: z.literal('extract'),
  /** The page read (its path on the portal). */
  page: z.string(),
  applicationNumber: z.string().nullable(),
  reference: z.string().nullable(),
  /** The page's title, as read. */
  title: z.string(),
  /** sha256 of the acknowledgement kept as the receipt, when it was kept. */
  receiptSha256: z.string().nullable(),
  readBy: z.enum(['rules', 'model']),
});
export type ExtractResult = z.infer<typeof ExtractResult>;

export const ReadResult = z.discriminatedUnion('kind', [StatusResult, ExtractResult]);
export type ReadResult = z.infer<typeof ReadResult>;

/** The step event type that carries a {@link ReadResult}. */
export const READ_RESULT_EVENT = 'read_result';

/** The result in one line, for the run's reason and the terminal. */
export function describeReadResult(result: ReadResult): string {
  if (result.kind === 'status') {
    const extra = [result.reference ? `reference ${result.reference}` : '', result.submittedOn ? `submitted ${result.submittedOn}` : ''].filter(Boolean).join(', ');
    return `Status of ${result.applicationNumber}: ${result.status}${extra ? ` (${extra})` : ''}; read from the applications list by ${result.readBy === 'model' ? 'the model' : 'code'}, nothing touched`;
  }
  const what = [result.applicationNumber ? `application ${result.applicationNumber}` : 'no application number', result.reference ? `reference ${result.reference}` : ''].filter(Boolean).join(', ');
  return `Read ${result.page} ("${result.title}"): ${what}${result.receiptSha256 ? `; kept as receipt sha256 ${result.receiptSha256}` : ''}; nothing touched`;
}
