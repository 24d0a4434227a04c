import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { sha256Hex } from '../../base/canonical-json';
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
 * The file is opened without following a last symlink and checked again on the handle, so what is
 * hashed is what is read.
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
  const wanted = resolve(folder, relativePath);
  if (!inside(folder, wanted)) return { ok: false, reason: `document "${name}" (${relativePath.slice(0, 120)}) is outside the case folder` };
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    return { ok: false, reason: `document "${name}": there is no file ${relativePath.slice(0, 120)} in the case folder` };
  }
  if (!inside(folder, real)) {
    return { ok: false, reason: `document "${name}" (${relativePath.slice(0, 120)}) leads out of the case folder through a symbolic link` };
  }
  const type = DOCUMENT_TYPES[extname(real).toLowerCase()];
  if (!type) {
    return { ok: false, reason: `document "${name}" is a ${extname(real) || 'file without an extension'}; only ${Object.keys(DOCUMENT_TYPES).join(', ')} files are attached` };
  }
  let fd: number;
  try {
    if (!lstatSync(real).isFile()) return { ok: false, reason: `document "${name}" is not a regular file` };
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return { ok: false, reason: `document "${name}" cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, reason: `document "${name}" is not a regular file` };
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
    return { ok: true, document: { name, file: basename(real), mimeType: type, bytes, sha256: sha256Hex(bytes) } };
  } finally {
    closeSync(fd);
  }
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}
