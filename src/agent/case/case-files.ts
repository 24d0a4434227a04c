import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CaseFile } from '../../shared/case-file';
import { ConfigFileError } from './config-file-error';
import { loadJsonFile } from './load-json';

/** What a case file may hold: everything but `folder`, which only the loader sets. */
const WrittenCaseFile = CaseFile.omit({ folder: true });

/**
 * Reads a case file and notes the real path of its folder (`folder`), where its documents must
 * lie. A case file that names a folder itself is refused: it cannot choose where uploads come from.
 */
export function loadCaseFile(path: string): CaseFile {
  const written = loadJsonFile(path, WrittenCaseFile, 'case file');
  let folder: string;
  try {
    folder = realpathSync(dirname(resolve(path)));
  } catch {
    throw new ConfigFileError(path, 'the case file\'s folder cannot be resolved');
  }
  return { ...written, folder };
}
