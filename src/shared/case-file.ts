import { z } from 'zod';

/** A field value: text (also dates as YYYY-MM-DD and option labels) or a yes/no for a checkbox. */
export const FieldValue = z.union([z.string().max(2000), z.boolean()]);
export type FieldValue = z.infer<typeof FieldValue>;

const fieldKey = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a field name is letters, digits and underscores, starting with a letter');

/**
 * A client's case file: what the office knows and wants filed. Values in here are the only
 * text the agent may type (plus codes the clerk types).
 */
export const CaseFile = z.strictObject({
  caseId: z.string().min(1).max(80).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
  clientId: z.string().min(1).max(80).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
  /** Portal profile id, e.g. "shops". */
  portal: z.string().min(1).max(80),
  /** What to do, e.g. "shop-registration-renewal". */
  task: z.string().min(1).max(120),
  fields: z.record(fieldKey, FieldValue).refine((f) => Object.keys(f).length > 0, 'at least one field is needed'),
  /** Other labels a field goes by on the portal (matched after normalising case and punctuation). */
  aliases: z.record(fieldKey, z.array(z.string().min(1).max(200))).default({}),
  /** Declarations the clerk has confirmed with the client and that may be ticked (checkbox labels, or parts of them). */
  declarations: z.array(z.string().min(1).max(300)).default([]),
  /** Free-text note for the clerk; never shown to the model. */
  note: z.string().max(2000).optional(),
});
export type CaseFile = z.infer<typeof CaseFile>;
export type CaseFileInput = z.input<typeof CaseFile>;
