import { z } from 'zod';
import { groupProblem, parseGroupPath, PLAIN_FIELD } from './case-groups';

/**
 * Why a string cannot be typed into a portal, or null: a control character (a NUL, an escape…;
 * `allowLines` lets line breaks and tabs through), half of a surrogate pair, a byte order mark or
 * U+FFFD (what a decoder leaves where the file's bytes were not text).
 */
function untypableCharacter(text: string, allowLines = false): string | null {
  const m = /[\p{Cc}\p{Cs}\uFEFF\uFFFD]/u.exec(allowLines ? text.replace(/[\n\r\t]/g, ' ') : text);
  if (!m) return null;
  const code = `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const what =
    m[0] === '\uFEFF' ? 'a byte order mark' : m[0] === '\uFFFD' ? 'a replacement character (text damaged in decoding)' : /\p{Cs}/u.test(m[0]) ? 'half of a surrogate pair' : 'a control character';
  return `holds ${what} (${code}) at character ${m.index + 1}; a portal cannot take it`;
}

/** Text that may end up typed into a portal or matched against its labels. */
const portalText = (max: number, allowLines = false) =>
  z
    .string()
    .max(max)
    .superRefine((text, ctx) => {
      const problem = untypableCharacter(text, allowLines);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** A field value: text (also dates as YYYY-MM-DD and option labels) or a yes/no for a checkbox. */
export const FieldValue = z.union([portalText(2000), z.boolean()]);
export type FieldValue = z.infer<typeof FieldValue>;

const fieldKey = z
  .string()
  .min(1)
  .max(80)
  .regex(PLAIN_FIELD, 'a field name is letters, digits and underscores, starting with a letter');

/**
 * A field's name in `fields`: a plain name, or one person's field of a repeated group written as
 * an indexed path, `partners[0].full_name` (see case-groups.ts).
 */
const fieldPath = z
  .string()
  .min(1)
  .max(80)
  .refine((name) => PLAIN_FIELD.test(name) || parseGroupPath(name) !== null, 'a field name is letters, digits and underscores, starting with a letter, or a repeated group\'s field written group[index].field (partners[0].full_name)');

/** A document's path as a case file writes it: relative, forward slashes, no `..`, no hidden parts. */
const documentPath = portalText(300)
  .pipe(z.string().min(1))
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.includes('\\'), 'a document path is relative to the case file\'s folder, written with forward slashes')
  .refine((p) => p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), 'a document path has no empty, "." or ".." parts: it stays inside the case file\'s folder');

/**
 * A read-only task: the run reads the portal and touches no control (the guard and the executor
 * refuse every action of such a run). `status`: the status of an application, from the portal's
 * applications list; `extract`: what a named page of the portal shows (an acknowledgement).
 */
export const ReadTask = z.strictObject({
  kind: z.enum(['status', 'extract']),
  /** The application asked about (e.g. "SHP-2026-000123"); absent: the case's own, found on the list by the case's values. */
  applicationNumber: portalText(80).pipe(z.string().min(1)).optional(),
  /**
   * `extract`: the page to read, a path on the portal (e.g. "/confirmation/{applicationNumber}",
   * where `{applicationNumber}` is replaced); absent: the applications list.
   */
  page: z
    .string()
    .max(300)
    .regex(/^\/[^\s\\]*$/, 'a path on the portal, starting with "/" (never another site)')
    .refine((p) => !p.startsWith('//'), 'a path on the portal, not another site ("//host")')
    .optional(),
  /** What to read, in words (for the model); a default per kind otherwise. */
  question: portalText(300).pipe(z.string().min(1)).optional(),
});
export type ReadTask = z.infer<typeof ReadTask>;

/** What a case asks for: `fill` (fill in and submit the form, the default), or a read-only `status` / `extract`. */
type TaskKind = 'fill' | ReadTask['kind'];

export function taskKindOf(caseFile: { read?: ReadTask }): TaskKind {
  return caseFile.read?.kind ?? 'fill';
}

/**
 * A client's case file: what the office knows and wants filed. Values in here are the only
 * text the agent may type (plus codes the clerk types).
 */
export const CaseFile = z.strictObject({
  caseId: z.string().min(1).max(80).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
  clientId: z.string().min(1).max(80).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
  /**
   * Portal profile id, e.g. "shops": only an id, looked up in the configured profile folders, so
   * whoever writes a case file cannot choose the hosts, risky words or review pages it runs under.
   */
  portal: z.string().min(1).max(80).regex(/^[a-z0-9-]+$/, 'a portal id (lower-case letters, digits and dashes) from the configured profile folders, never a file path'),
  /** What to do, e.g. "shop-registration-renewal". */
  task: portalText(120).pipe(z.string().min(1)),
  /** Present: the task only reads the portal (its kind `status` or `extract`, see {@link ReadTask}); absent: it fills the form. */
  read: ReadTask.optional(),
  /**
   * The values, by field name. A repeated group (several partners, directors, co-applicants) writes
   * each person's answers under an indexed path: `"partners[0].full_name"`, `"partners[1].full_name"`,
   * people numbered from 0 without gaps (the page's "Partner 2" is `partners[1]`).
   */
  fields: z
    .record(fieldPath, FieldValue)
    .refine((f) => Object.keys(f).length > 0, 'at least one field is needed')
    .superRefine((f, ctx) => {
      const problem = groupProblem(Object.keys(f));
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** Other labels a field goes by on the portal (matched after normalising case and punctuation); for a group's field, keyed by its member name (`full_name`). */
  aliases: z.record(fieldKey, z.array(portalText(200).pipe(z.string().min(1)))).default({}),
  /** Declarations the clerk has confirmed with the client and that may be ticked (checkbox labels, or parts of them). */
  declarations: z.array(portalText(300).pipe(z.string().min(1))).default([]),
  /**
   * Documents the agent may attach, by name: a path relative to the case file's folder
   * (`"id_proof": "anand/pan.pdf"`). Only these can be uploaded, and only from inside that folder.
   */
  documents: z.record(fieldKey, documentPath).default({}),
  /**
   * Set by the loader: the real path of the folder the case file was read from, where its
   * documents must lie. One a case file names itself is replaced by the loader, never believed.
   */
  folder: z.string().min(1).max(4096).optional(),
  /** Free-text note for the clerk; never shown to the model. */
  note: portalText(2000, true).optional(),
});
export type CaseFile = z.infer<typeof CaseFile>;
export type CaseFileInput = z.input<typeof CaseFile>;
