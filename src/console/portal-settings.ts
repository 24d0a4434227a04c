import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile } from '../agent/case/portal-profiles';
import { DEFAULT_MODEL } from '../agent/decide/anthropic';
import type { ModelStatus, PortalSummary } from '../shared/console-api';
import type { DemoPortals } from '../service/demo-portals';

/** Every portal profile the console can run, the first folder's copy winning, as the settings screen shows them (demo portals marked `lab`). */
export function listPortalProfiles(folders: string[], demo?: DemoPortals): PortalSummary[] {
  const seen = new Map<string, PortalSummary>();
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.json')).sort()) {
      const id = name.slice(0, -5);
      if (seen.has(id)) continue;
      try {
        const profile = loadPortalProfile(join(folder, name));
        const lab = demo?.portalId(profile) !== undefined;
        seen.set(id, {
          id: profile.id,
          name: profile.name,
          startUrl: profile.startUrl,
          allowedHosts: profile.allowedHosts,
          riskyWords: profile.riskyWords,
          lab,
          layouts: lab && demo!.layouts,
        });
      } catch (err) {
        // A broken profile is reported on the case files that name it; the list shows the usable ones.
        if (!(err instanceof ConfigFileError)) throw err;
      }
    }
  }
  return [...seen.values()];
}

/** The planner a run would get and whether the key is there; never the key itself. */
export function modelStatus(env: Record<string, string | undefined>): ModelStatus {
  const keyPresent = !!env['ANTHROPIC_API_KEY']?.trim();
  const baseURL = withoutUserInfo(env['ANTHROPIC_BASE_URL']?.trim());
  return {
    planner: keyPresent ? 'anthropic' : 'rules',
    model: env['ANTHROPIC_MODEL']?.trim() || DEFAULT_MODEL,
    keyPresent,
    ...(baseURL ? { baseURL } : {}),
  };
}

/** A gateway URL may carry a login (`https://user:secret@host`): the status shows the address only. */
function withoutUserInfo(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(not a valid URL)';
  }
}
