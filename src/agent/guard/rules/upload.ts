import { isAllowedUrl, shorten } from '../../../shared/allowed-hosts';
import type { Action } from '../../../shared/action';
import type { Verdict } from '../../../shared/verdict';
import { readCaseDocument, type CaseDocument } from '../../case/documents';
import type { GuardContext } from '../guard-context';
import { allow, block, type GuardRule } from './rule';

/** Frames that hold the parent page's own content (same origin as the page around them). */
const PARENT_CONTENT = /^about:(blank|srcdoc)$/i;

/**
 * `upload` attaches one of the case file's documents, and nothing else on disk: only into a file
 * input, on a page and in a frame of the portal's own hosts, only a document the case lists, found
 * inside the case file's folder (its real path: no `..`, no symbolic link out), of an allowed kind
 * and size. The verdict carries the document's name, file, size and sha256, which the step records.
 * (This rule reads the file to hash it; the executor reads it again and attaches only bytes with
 * the same hash.)
 */
export const uploadRule: GuardRule = {
  id: 'upload',
  check(action, ctx) {
    if (action.type !== 'upload') return undefined;
    const control = ctx.control(action.ref);
    if (!control) return undefined;
    if (control.inputType?.toLowerCase() !== 'file') {
      return block('upload', `${control.label} is not a file upload; a document is attached only to a file input.`);
    }
    const page = isAllowedUrl(ctx.observation.url, ctx.profile);
    if (!page.ok) return block('upload', `No document goes to this page: ${page.reason}.`);
    if (control.frameUrl && !PARENT_CONTENT.test(control.frameUrl.split(/[?#]/)[0]!)) {
      const frame = isAllowedUrl(control.frameUrl, ctx.profile, ctx.observation.url);
      if (!frame.ok) return block('upload', `${control.label} sits in a frame from “${shorten(control.frameUrl)}”: ${frame.reason}. No document goes to another site.`);
    }
    const found = readCaseDocument(ctx.caseFile, action.document);
    if (!found.ok) return block('upload', `Not attached: ${found.reason}.`);
    const { document } = found;
    return allow('upload', `Attaches case document "${document.name}" (${document.file}, ${document.bytes.length} bytes, sha256 ${document.sha256.slice(0, 16)}…) to ${control.label}.`, {
      source: 'case',
      field: document.name,
      document: { file: document.file, bytes: document.bytes.length, sha256: document.sha256 },
    });
  },
};

/**
 * The document the executor attaches for an allowed `upload`: read again, and only when its bytes
 * still hash to what the guard checked (`verdict`'s provenance). Throws otherwise (the guard blocks
 * such actions first, so a throw means the file changed in between, or a caller skipped the guard).
 */
export function resolveDocument(action: Extract<Action, { type: 'upload' }>, ctx: Pick<GuardContext, 'caseFile'>, verdict: Verdict): CaseDocument {
  const checked = verdict.provenance?.document;
  if (verdict.verdict !== 'allow' || !checked) throw new Error(`document "${action.document}" was not checked by the guard; nothing was attached`);
  const found = readCaseDocument(ctx.caseFile, action.document);
  if (!found.ok) throw new Error(`${found.reason}; nothing was attached`);
  if (found.document.sha256 !== checked.sha256) {
    throw new Error(`document "${action.document}" changed after the guard checked it (sha256 ${checked.sha256.slice(0, 12)}… is now ${found.document.sha256.slice(0, 12)}…); nothing was attached`);
  }
  return found.document;
}
