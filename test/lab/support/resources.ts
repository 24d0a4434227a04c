import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CaseFile } from '../../../src/shared/case-file';
import { PortalProfile } from '../../../src/shared/portal-profile';

/** The shipped case files and portal profiles, parsed with the shared schemas. */

const ROOT = fileURLToPath(new URL('../../../resources', import.meta.url));

export function caseFileNames(): string[] {
  return readdirSync(join(ROOT, 'cases')).filter((f) => f.endsWith('.json')).sort();
}

export function loadCase(name: string): CaseFile {
  return CaseFile.parse(JSON.parse(readFileSync(join(ROOT, 'cases', name.endsWith('.json') ? name : `${name}.json`), 'utf8')));
}

export function loadCases(): CaseFile[] {
  return caseFileNames().map(loadCase);
}

export function loadProfile(id: string): PortalProfile {
  return PortalProfile.parse(JSON.parse(readFileSync(join(ROOT, 'portals', `${id}.json`), 'utf8')));
}

/** How a label-matching form filler compares names: lower case, punctuation and underscores to spaces. */
export function normaliseName(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}_]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
