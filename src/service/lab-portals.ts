import type { CredentialSource, Credentials } from '../shared/credentials';
import type { PortalProfile } from '../shared/portal-profile';
import { bindLabProfile, labAccount, PORTAL_HOSTS, PORTAL_IDS, startLab, type Lab, type PortalId } from '../lab';

/** A portal profile whose hosts are all lab hosts: runs against it start the lab. */
export function labPortalId(profile: PortalProfile): PortalId | undefined {
  const id = PORTAL_IDS.find((p) => p === profile.id);
  if (!id) return undefined;
  const labHost = PORTAL_HOSTS[id];
  return profile.allowedHosts.every((h) => h.split(':')[0] === labHost) ? id : undefined;
}

/** Demo logins for the lab's accounts, offered after the vault (which wins when it has an entry). */
export class LabCredentials implements CredentialSource {
  async get(clientId: string, portalId: string): Promise<Credentials | null> {
    return (PORTAL_IDS as readonly string[]).includes(portalId) ? labAccount(clientId) : null;
  }
}

/** The lab, started once on first need and shared by every run of this process. */
export class LabHandle {
  private lab: Promise<Lab> | undefined;

  get(): Promise<Lab> {
    this.lab ??= startLab();
    return this.lab;
  }

  async bind(profile: PortalProfile): Promise<{ profile: PortalProfile; lab: Lab | undefined }> {
    if (!labPortalId(profile)) return { profile, lab: undefined };
    const lab = await this.get();
    return { profile: bindLabProfile(profile, lab.port), lab };
  }

  async stop(): Promise<void> {
    if (this.lab) await (await this.lab).stop();
    this.lab = undefined;
  }
}
