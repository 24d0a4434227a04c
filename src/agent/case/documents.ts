import { closeSync, fstatSync, readSync, realpathSync } from 'node:fs';
import { extname, isAbsolute } from 'node:path';
import { sha256Hex } from '../../base/canonical-json';
import { NotRegularFileError, openBeneath, OutsideRootError } from '../../base/regular-file';
import type { CaseFile } from '../../shared/case-file';

/** The kinds of file a portal is sent: scans and photos of documents. By extension, with the type the upload declares. */
const DOCUMENT_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
};

/** Portals cap uploads at a few megabytes; nothing larger is read. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

/** One case document, read and checked: what the upload sends is exactly these bytes. */
export interface CaseDocument {
  /** Its name in the case file (`id_proof`). */
  name: string;
  /** The file's own name, as the portal receives it (`pan.pdf`). */
  file: string;
  mimeType: string;
  bytes: Buffer;
  sha256: string;
}

type DocumentCheck = { ok: true; document: CaseDocument } | { ok: false; reason: string };

/**
 * Finds, checks and reads one of the case file's documents. Refused: a name the case does not
 * list, a case read without its folder, a path that leaves the folder (`..`, an absolute path, a
 * symbolic link anywhere on the way that points out of it), anything but a regular file, an
 * extension not in {@link DOCUMENT_TYPES}, an empty file or one over {@link MAX_DOCUMENT_BYTES}.
 * The file is opened one component at a time under the case folder (`openBeneath`), no link
 * followed out of it, and checked on the handle, so what is hashed is what is read.
 */
export function readCaseDocument(caseFile: Pick<CaseFile, 'documents' | 'folder'>, name: string): DocumentCheck {
  const documents = caseFile.documents ?? {};
  if (!Object.hasOwn(documents, name)) {
    const listed = Object.keys(documents);
    return { ok: false, reason: `the case lists no document "${name.slice(0, 80)}"${listed.length ? ` (its documents: ${listed.slice(0, 20).join(', ')})` : ' (it lists none)'}` };
  }
  const relativePath = documents[name]!;
  if (!caseFile.folder) return { ok: false, reason: `document "${name}": the case was not read from a folder, so no file can be attached` };
  let folder: string;
  try {
    folder = realpathSync(caseFile.folder);
  } catch {
    return { ok: false, reason: `document "${name}": the case folder ${caseFile.folder} is gone` };
  }
  if (isAbsolute(relativePath) || relativePath.split(/[\\/]/).includes('..')) {
    return { ok: false, reason: `document "${name}" (${relativePath.slice(0, 120)}) is outside the case folder` };
  }
  // Opened one component at a time under the case folder, no link followed out of it: a folder on
  // the way swapped for a link between a check and the open cannot lead anywhere else.
  let fd: number;
  let file: string;
  try {
    ({ fd, name: file } = openBeneath(folder, relativePath, 'file', 'document'));
  } catch (err) {
    if (err instanceof OutsideRootError) {
      return { ok: false, reason: `document "${name}" (${relativePath.slice(0, 120)}) ${err.throughLink ? 'leads out of the case folder through a symbolic link' : 'is outside the case folder'}` };
    }
    if (err instanceof NotRegularFileError) return { ok: false, reason: `document "${name}" is not a regular file` };
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, reason: `document "${name}": there is no file ${relativePath.slice(0, 120)} in the case folder` };
    return { ok: false, reason: `document "${name}" cannot be read (${code ?? 'error'})` };
  }
  const type = DOCUMENT_TYPES[extname(file).toLowerCase()];
  if (!type) {
    closeSync(fd);
    return { ok: false, reason: `document "${name}" is a ${extname(file) || 'file without an extension'}; only ${Object.keys(DOCUMENT_TYPES).join(', ')} files are attached` };
  }
  try {
    const stat = fstatSync(fd);
    if (stat.size === 0) return { ok: false, reason: `document "${name}" is an empty file` };
    if (stat.size > MAX_DOCUMENT_BYTES) {
      return { ok: false, reason: `document "${name}" is ${(stat.size / 1048576).toFixed(1)} MiB; at most ${MAX_DOCUMENT_BYTES / 1048576} MiB is attached` };
    }
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, bytes, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    if (read !== stat.size) return { ok: false, reason: `document "${name}" changed while it was read` };
    return { ok: true, document: { name, file, mimeType: type, bytes, sha256: sha256Hex(bytes) } };
  } finally {
    closeSync(fd);
  }
}
