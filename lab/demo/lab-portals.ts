import type { CredentialSource, Credentials } from '../../src/shared/credentials';
import type { PortalProfile } from '../../src/shared/portal-profile';
import type { Planner } from '../../src/agent/decide/planner';
import type { DemoPortals } from '../../src/service/demo-portals';
import { AdversaryPlanner } from '../adversary';
import { bindLabProfile, labAccount, CAPTCHA_HOST, CONTROL_HOST, PHONE_HOST, PORTAL_HOSTS, PORTAL_IDS, startLab, type Lab, type PortalId } from '..';

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

/**
 * Chromium `--host-resolver-rules` for a browser that reaches real portals too (the demo shell):
 * the portal lab's host names (all under the reserved `.example` domain) resolve to the loopback
 * lab; every other name resolves as usual. (The CLI maps every name to the lab instead, one
 * browser per kind of run.)
 */
export function labResolverRules(target = '127.0.0.1'): string {
  const names = [...Object.values(PORTAL_HOSTS), PHONE_HOST, CONTROL_HOST, CAPTCHA_HOST];
  return [...new Set(names)].sort().map((name) => `MAP ${name} ${target}`).join(', ');
}

/** The portal lab as the product's demo-portal port: started once on first need and shared by every run of this process. */
export class LabHandle implements DemoPortals<Lab> {
  private lab: Promise<Lab> | undefined;
  readonly credentials = new LabCredentials();
  readonly layouts = true;

  /** `started` hears of the lab once it listens (the console prints where its phone and control API are). */
  constructor(private readonly started?: (lab: Lab) => void) {}

  portalId(profile: PortalProfile): PortalId | undefined {
    return labPortalId(profile);
  }

  get(): Promise<Lab> {
    this.lab ??= startLab().then((lab) => {
      this.started?.(lab);
      return lab;
    });
    return this.lab;
  }

  async bind(profile: PortalProfile): Promise<{ profile: PortalProfile; lab: Lab | undefined }> {
    if (!labPortalId(profile)) return { profile, lab: undefined };
    const lab = await this.get();
    return { profile: bindLabProfile(profile, lab.port), lab };
  }

  /** A lab portal's profile bound to a lab another process runs on `port`; undefined for any other profile. */
  bindAt(profile: PortalProfile, port: number): PortalProfile | undefined {
    return labPortalId(profile) ? bindLabProfile(profile, port) : undefined;
  }

  async stop(): Promise<void> {
    if (this.lab) await (await this.lab).stop();
    this.lab = undefined;
  }

  resolverRules(target?: string): string {
    return labResolverRules(target);
  }

  adversary(seed: number): Planner {
    return new AdversaryPlanner({ seed });
  }
}
