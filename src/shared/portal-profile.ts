import { z } from 'zod';

/** Words that make a control risky (matched on word boundaries, case-insensitive). */
export const DEFAULT_RISKY_WORDS = ['submit', 'pay', 'payment', 'confirm', 'delete', 'remove', 'sign', 'download', 'declare', 'cancel application', 'withdraw'];

/** Title or heading patterns of final-review pages. */
export const DEFAULT_FINAL_REVIEW_PATTERNS = ['check your answers', 'review your application', 'review and submit', 'declaration and submit'];

/** An allowed host: a hostname, or `hostname:port` where the portal is not on the scheme's default port. */
const AllowedHost = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, 'a lower-case hostname, optionally with :port (no scheme, no path)');

/** What the office knows about one portal. An office adds a real portal by writing one of these. */
export const PortalProfile = z.strictObject({
  id: z.string().min(1).max(80).regex(/^[a-z0-9-]+$/, 'lower-case letters, digits and dashes'),
  name: z.string().min(1).max(200),
  startUrl: z.url(),
  allowedHosts: z.array(AllowedHost).min(1),
  /** Allow plain http (only for the lab and intranet portals). */
  allowHttp: z.boolean().default(false),
  riskyWords: z.array(z.string().min(1)).default(DEFAULT_RISKY_WORDS),
  /** Case-insensitive substrings of the title or a heading that mark a final-review page. */
  finalReviewPatterns: z.array(z.string().min(1)).default(DEFAULT_FINAL_REVIEW_PATTERNS),
  signIn: z
    .strictObject({
      /** Substring of the sign-in page's URL path, where the portal has a fixed one. */
      urlContains: z.string().optional(),
      usernameLabel: z.string().default('Username'),
      passwordLabel: z.string().default('Password'),
      submitLabel: z.string().default('Sign in'),
    })
    .default({ usernameLabel: 'Username', passwordLabel: 'Password', submitLabel: 'Sign in' }),
  otp: z
    .strictObject({
      /** Words on the page that mean a one-time code is asked for. */
      words: z.array(z.string()).default(['verification code', 'one-time code', 'one time password', 'otp']),
    })
    .default({ words: ['verification code', 'one-time code', 'one time password', 'otp'] }),
  confirmation: z.strictObject({
    /** Regex (source) that finds the application number on the confirmation page. */
    applicationNumberPattern: z.string().min(1),
    /** Case-insensitive substring of the title or a heading on the confirmation page. */
    pageContains: z.string().min(1),
  }),
  /** Where the portal lists the client's applications (checked before any retried submission). */
  applicationsUrl: z.url().optional(),
});
export type PortalProfile = z.infer<typeof PortalProfile>;
export type PortalProfileInput = z.input<typeof PortalProfile>;
