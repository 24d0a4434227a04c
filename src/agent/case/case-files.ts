import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CaseFile } from '../../shared/case-file';
import { ConfigFileError } from './config-file-error';
import { loadJsonFile } from './load-json';

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
