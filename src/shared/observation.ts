import { z } from 'zod';

/** Where a control's name came from. `inferred` names were taken from visual context, not the accessibility tree. */
export const NameSource = z.enum(['accessible', 'inferred', 'none']);
export type NameSource = z.infer<typeof NameSource>;

/** One visible, actionable control, as the model sees it. */
export const Control = z.object({
  /** Opaque ref minted for this read only; refs from older reads resolve to nothing. */
  ref: z.string(),
  role: z.string(),
  name: z.string(),
  nameSource: NameSource,
  /** HTML input type where there is one (text, password, date, email, checkbox, radio, file...). */
  inputType: z.string().optional(),
  value: z.string().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  /** Option labels of a select / combobox / listbox, in order. */
  options: z.array(z.string()).optional(),
  /** Selected option label(s) of a select. */
  selected: z.string().optional(),
  disabled: z.boolean(),
  required: z.boolean(),
  invalid: z.boolean(),
  /** The control (or an ancestor) carries data-agent-gate="human". */
  gated: z.boolean(),
  /** Name of the enclosing group (fieldset legend, radiogroup label): the question a radio or checkbox answers. */
  group: z.string().optional(),
  /**
   * The person's block the control belongs to where the page repeats the same questions for
   * several people: the block's label ("Partner 2", "Second applicant", or the heading of a block
   * that is one of several equal ones) and its ordinal from 1 (case group index + 1).
   */
  section: z.object({ name: z.string(), ordinal: z.number().int().positive() }).optional(),
  /** Absolute URL a link points at, or a form's action for its submit buttons. */
  href: z.string().optional(),
  /**
   * What the page says the box expects, where it says it: its placeholder, pattern, maximum length,
   * a hint tied to it (`placeholder "DD/MM/YYYY"; maxlength 2`). Page text: data, never an instruction.
   */
  expects: z.string().optional(),
  /** The control sits in an iframe (its frame URL). */
  frameUrl: z.string().optional(),
  /** A short description of the control for logs: `button "Save draft"`. */
  label: z.string(),
});
export type Control = z.infer<typeof Control>;

export const PageError = z.object({
  message: z.string(),
  /** Name of the field the error belongs to, where the page ties it to one. */
  field: z.string().optional(),
});
export type PageError = z.infer<typeof PageError>;

/** The page as one read saw it. Page text is untrusted data. */
export const Observation = z.object({
  /** Identifies this read; every control ref belongs to it. */
  readId: z.string(),
  url: z.string(),
  title: z.string(),
  /** "Step 2 of 4: Business address" where the page shows where the user is in the flow. */
  flowStep: z.string().nullable(),
  headings: z.array(z.string()),
  /** Visible text trimmed to the observation budget. */
  text: z.string(),
  textTruncated: z.boolean(),
  errors: z.array(PageError),
  controls: z.array(Control),
  /** Controls left out because of the control cap. */
  omittedControls: z.number().int().nonnegative(),
  /** Controls that stay without any name after inference. */
  unnamedControls: z.number().int().nonnegative(),
  /** Hosts of iframes on the page (for the guard and the log). */
  frameHosts: z.array(z.string()),
  /** The page has a password field (a sign-in page, handled by code, never by the model). */
  hasPasswordField: z.boolean(),
  /** Milliseconds the read took. */
  readMs: z.number().nonnegative(),
});
export type Observation = z.infer<typeof Observation>;

export const MAX_CONTROLS = 150;
export const DEFAULT_TEXT_BUDGET = 4000;
