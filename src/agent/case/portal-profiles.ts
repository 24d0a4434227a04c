import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PortalProfile } from '../../shared/portal-profile';
import { mapEntryProblem } from '../guard/request-class';
import { ConfigFileError } from './config-file-error';
import { loadJsonFile } from './load-json';

/** Folders searched for `<id>.json` portal profiles, the office's own first. */
export function profileFolders(extra: string[] = []): string[] {
  const folders = [...extra];
  if (process.env.PORTAL_DESK_PORTALS) folders.push(process.env.PORTAL_DESK_PORTALS);
  folders.push(resolve(__dirname, '../../../resources/portals'));
  return folders;
}

export function loadPortalProfile(idOrPath: string, folders = profileFolders()): PortalProfile {
  if (idOrPath.endsWith('.json')) return checkedMap(idOrPath, loadJsonFile(idOrPath, PortalProfile, 'portal profile'));
  for (const folder of folders) {
    const path = join(folder, `${idOrPath}.json`);
    if (existsSync(path)) {
      const profile = loadJsonFile(path, PortalProfile, 'portal profile');
      if (profile.id !== idOrPath) throw new ConfigFileError(path, `id: the profile says "${profile.id}" but the file is named for "${idOrPath}"`);
      return checkedMap(path, profile);
    }
  }
  const known = folders.flatMap((f) => (existsSync(f) ? readdirSync(f).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)) : []));
  throw new ConfigFileError(idOrPath, `no portal profile with this id (known: ${known.join(', ') || 'none'})`);
}

/** The profile's request map against the built-in forbidden and risky-word rules: a harmless entry they refuse or hold is an error. */
function checkedMap(path: string, profile: PortalProfile): PortalProfile {
  for (const [i, entry] of profile.requestMap.entries()) {
    const problem = mapEntryProblem(entry, profile);
    if (problem) throw new ConfigFileError(path, `requestMap.${i}: ${problem}`);
  }
  return profile;
}
