import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFileError } from '../agent/case/config-file-error';
import { loadPortalProfile } from '../agent/case/portal-profiles';
import { DEFAULT_MODEL } from '../agent/decide/anthropic';
import type { CredentialSummary, ModelStatus, PortalSummary } from '../shared/console-api';
import type { DemoPortals } from '../service/demo-portals';
import type { OpenedVault } from '../vault';

/**
 * What the settings screen shows and changes: the portal profiles runs can use, the model a run
 * would get, and the credentials the vault keeps for each client and portal (never a password shown).
 */
export class PortalSettings {
  constructor(
    private readonly o: {
      portalFolders: string[];
      demo: DemoPortals | undefined;
      env: Record<string, string | undefined>;
      vault: () => Promise<OpenedVault>;
    },
  ) {}

  portals(): PortalSummary[] {
    return listPortalProfiles(this.o.portalFolders, this.o.demo);
  }

  model(): ModelStatus {
    return modelStatus(this.o.env);
  }

  async credentials(): Promise<CredentialSummary[]> {
    const { vault } = await this.o.vault();
    return (await vault.list()).map((e) => ({ clientId: e.clientId, portal: e.portalId, username: e.username, updatedAt: e.updatedAt }));
  }

  async saveCredential(p: { clientId: string; portal: string; username: string; password: string }): Promise<void> {
    const { vault } = await this.o.vault();
    await vault.set(p.clientId, p.portal, { username: p.username, password: p.password });
  }

  async removeCredential(clientId: string, portal: string): Promise<boolean> {
    const { vault } = await this.o.vault();
    return vault.remove(clientId, portal);
  }
}

/** Every portal profile the console can run, the first folder's copy winning, as the settings screen shows them (demo portals marked `lab`). */
function listPortalProfiles(folders: string[], demo?: DemoPortals): PortalSummary[] {
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
function modelStatus(env: Record<string, string | undefined>): ModelStatus {
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
