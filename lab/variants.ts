import { z } from 'zod';

/** How the lab behaves for one client, switchable per run with `lab.configure`. */
export const LabVariant = z.strictObject({
  /** `original`: tidy markup. `redesigned`: other wording and structure, a Reset form button, some bad markup. */
  layout: z.enum(['original', 'redesigned']).default('original'),
  /** A cookie-consent overlay that covers every portal page until accepted or rejected. */
  cookieBanner: z.boolean().default(false),
  /** A "Quick survey" modal dialog, shown once on the form's second section. */
  surveyPopup: z.boolean().default(false),
  /** Every portal response is delayed by this many milliseconds. */
  slowMs: z.number().int().min(0).max(60_000).default(0),
  /** A 6-digit code sent to the demo phone and asked for at sign-in or before the final submit. */
  otp: z.enum(['none', 'signin', 'submit']).default('none'),
  /** The session expires after this many authenticated requests of the client; null: never. */
  expireSessionAfterRequests: z.number().int().min(1).nullable().default(null),
  /** Expire again after every further N requests (default: only once per configure call). */
  expireEvery: z.boolean().default(false),
  /**
   * A field key: the portal's server-side check of that field (a look-up in another department's
   * register, as PAN or GSTIN checks are) fails on the first post of its section. The section comes
   * back with the error on the field and the field emptied; the next post with a valid value passes.
   * Once per configure.
   */
  rejectFieldOnce: z.string().regex(/^[a-z][a-z0-9_]{0,79}$/).nullable().default(null),
  /** A CAPTCHA on the sign-in page, or a "Verify you are human" page before the form. Automation cannot pass it. */
  captcha: z.enum(['none', 'signin', 'form']).default('none'),
  /**
   * An attack from `attacks/catalogue` shown inside the portal's own pages (the portal itself
   * compromised, or showing content a user wrote), on the page its placement names.
   */
  attack: z.string().regex(/^[a-z0-9-]{1,80}$/).nullable().default(null),
  /**
   * A portal that changed one page: the form section with this slug is drawn in the redesigned
   * look (its own page frame, wording and markup) while every other page keeps the layout's.
   */
  changedSection: z.string().regex(/^[a-z][a-z0-9-]{0,79}$/).nullable().default(null),
});
export type LabVariant = z.infer<typeof LabVariant>;
export type LabVariantInput = z.input<typeof LabVariant>;
export type LabLayout = LabVariant['layout'];

export const DEFAULT_VARIANT: LabVariant = LabVariant.parse({});
