import { closeSync, readdirSync } from 'node:fs';
import { openBeneath } from '../base/regular-file';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { loadCaseFileUnder } from '../agent/case/case-files';
import { readConfigText } from '../agent/case/load-json';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile } from '../agent/case/portal-profiles';
import type { CaseFile } from '../shared/case-file';
import type { CaseSummary } from '../shared/console-api';
import type { BatchEntry } from '../service/batch';
import { errorText } from '../base/error-text';

/** The case files under `casesDir` (subfolders too), each with the one-line problem where it cannot run. */
export function listCaseFiles(casesDir: string, portalFolders: string[]): CaseSummary[] {
  let names: string[];
  try {
    names = readdirSync(casesDir, { recursive: true, encoding: 'utf8' });
  } catch (err) {
    throw new Error(`Cannot read the cases folder ${casesDir} (${(err as NodeJS.ErrnoException).code ?? String(err)}); start the console with --cases DIR`);
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.split(sep).join('/'))
    .sort()
    .map((file) => summarise(casesDir, file, portalFolders));
}

function summarise(casesDir: string, file: string, portalFolders: string[]): CaseSummary {
  const path = join(casesDir, file);
  try {
    const caseFile = loadCaseFileUnder(casesDir, file);
    const summary = { file, caseId: caseFile.caseId, clientId: caseFile.clientId, portal: caseFile.portal, task: caseFile.task, displayName: displayNameOf(caseFile) };
    try {
      loadPortalProfile(caseFile.portal, portalFolders);
    } catch (err) {
      if (err instanceof ConfigFileError) return { ...summary, problem: `portal "${caseFile.portal}": ${err.problem}` };
      throw err;
    }
    return summary;
  } catch (err) {
    const problem = err instanceof ConfigFileError ? err.problem : String(err);
    return { ...bestEffortFields(path, file), problem };
  }
}

/** What a broken file still tells: its ids where they are strings, so the queue can name it. */
function bestEffortFields(path: string, file: string): Omit<CaseSummary, 'problem'> {
  let raw: Record<string, unknown> = {};
  try {
    // The bounded reader: a FIFO or a device among the case files must not block the console.
    const parsed: unknown = JSON.parse(readConfigText(path, 'case file'));
    if (parsed && typeof parsed === 'object') raw = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the file name is all there is.
  }
  const text = (key: string, fallback: string): string => (typeof raw[key] === 'string' ? (raw[key] as string) : fallback);
  return { file, caseId: text('caseId', basename(file, '.json')), clientId: text('clientId', ''), portal: text('portal', ''), task: text('task', '') };
}

/** Case fields that name the client for people, in the order a clerk would call them. */
const NAME_FIELDS = ['display_name', 'business_name', 'employer_name', 'new_holder_name', 'applicant_name', 'client_name', 'name', 'owner_name', 'current_holder_name'];

/** The case's name for the queue and the headers: the first naming field the case file has, else its client id. */
export function displayNameOf(caseFile: Pick<CaseFile, 'clientId' | 'fields'>): string {
  for (const key of NAME_FIELDS) {
    const value = caseFile.fields[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 80);
  }
  return caseFile.clientId;
}

/**
 * Loads one case file named relative to the cases folder; refuses anything outside it. The file is
 * opened one component at a time under the folder, no link followed out of it (loadCaseFileUnder).
 */
export function loadCaseFromFolder(casesDir: string, file: string): CaseFile {
  const root = resolve(casesDir);
  const path = resolve(root, file);
  const inside = relative(root, path);
  if (!file.endsWith('.json') || inside.startsWith('..') || isAbsolute(inside)) {
    throw new Error(`"${file}" is not a case file in the cases folder ${root}`);
  }
  return loadCaseFileUnder(root, inside);
}

/** A case file of the cases folder as a batch reads it: loaded, or the one-line problem that keeps it from running. */
export function caseEntry(casesDir: string, file: string): BatchEntry {
  try {
    return { source: file, caseFile: loadCaseFromFolder(casesDir, file) };
  } catch (err) {
    return { source: file, problem: err instanceof ConfigFileError ? err.problem : errorText(err) };
  }
}

/** Every case file of a folder of the cases folder ('' is the cases folder itself), as `portal-desk batch DIR` reads it; null when it is not a folder there. */
export function folderEntries(casesDir: string, folder: string): BatchEntry[] | null {
  const path = resolveInFolder(casesDir, folder);
  if (!path) return null;
  const prefix = folder.replace(/\/+$/, '');
  // Each case file read under the cases folder, as a single file is (no link followed out of it).
  return readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => caseEntry(casesDir, `${prefix ? `${prefix}/` : ''}${name}`));
}

/** A folder named relative to the cases folder ('' is the folder itself), as an absolute path; null when it is outside it or not a folder. */
function resolveInFolder(casesDir: string, folder: string): string | null {
  const root = resolve(casesDir);
  const path = resolve(root, folder);
  const inside = relative(root, path);
  if (inside.startsWith('..') || isAbsolute(inside)) return null;
  try {
    // Opened component by component under the cases folder: a link out of it is not a folder in it.
    closeSync(openBeneath(root, inside, 'folder', 'folder').fd);
    return path;
  } catch {
    return null;
  }
}
