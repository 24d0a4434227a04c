import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadCaseFile } from '../agent/case/case-files';
import { ConfigFileError } from '../agent/case/config-file-error';
import type { BatchEntry } from './batch';

/**
 * The queue a batch runs: every `*.json` of a folder (by name), or the files given, in order.
 * A file that cannot be read or is not a valid case file becomes an entry with its one-line
 * problem, so the batch reports it and runs the others. A path that does not exist is one too.
 */
export function loadBatchEntries(paths: readonly string[]): BatchEntry[] {
  return paths.flatMap((path) => {
    let folder = false;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      return [{ source: path, problem: `${path}: no such file or folder` }];
    }
    const files = folder
      ? readdirSync(path)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(path, f))
      : [path];
    return files.map((file): BatchEntry => {
      try {
        return { source: file, caseFile: loadCaseFile(file) };
      } catch (err) {
        if (err instanceof ConfigFileError) return { source: file, problem: err.message };
        throw err;
      }
    });
  });
}
