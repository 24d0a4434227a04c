import { closeSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NotRegularFileError, openBeneath, OutsideRootError } from '../../base/regular-file';
import { CaseFile } from '../../shared/case-file';
import { ConfigFileError } from './config-file-error';
import { loadJsonFile, parseJsonText, readConfigFd } from './load-json';

/**
 * Reads a case file and sets `folder` to the real path of the folder it was read from, where its
 * documents must lie. A `folder` the file itself names (a copy of a case written back out) is never
 * believed: it is replaced, so a case file cannot choose where uploads come from.
 */
export function loadCaseFile(path: string): CaseFile {
  const written = loadJsonFile(path, CaseFile, 'case file');
  let folder: string;
  try {
    folder = realpathSync(dirname(resolve(path)));
  } catch {
    throw new ConfigFileError(path, 'the case file\'s folder cannot be resolved');
  }
  return { ...written, folder };
}

/**
 * Reads the case file `file` named inside the folder `root` (the console's cases folder): opened
 * one component at a time under it, no link followed out of it (`openBeneath`), so a subfolder
 * swapped for a link while the case is read cannot lead to a file elsewhere. Its `folder` is the
 * folder the opened file is in.
 */
export function loadCaseFileUnder(root: string, file: string): CaseFile {
  const path = join(root, file);
  let opened: { fd: number };
  try {
    opened = openBeneath(root, file, 'file', 'case file');
  } catch (err) {
    if (err instanceof OutsideRootError || err instanceof NotRegularFileError) throw new ConfigFileError(path, err.message);
    throw new ConfigFileError(path, `the case file cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const written = parseJsonText(readConfigFd(opened.fd, path, 'case file'), path, CaseFile, 'case file');
    return { ...written, folder: dirname(openedPath(opened.fd, path)) };
  } finally {
    closeSync(opened.fd);
  }
}

/** Where the open file really is (the kernel's name for the descriptor), else the real path of its name. */
function openedPath(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(path);
  }
}
