import { CaseFile } from '../../shared/case-file';
import { loadJsonFile } from './load-json';

export function loadCaseFile(path: string): CaseFile {
  return loadJsonFile(path, CaseFile, 'case file');
}
