import type { Planner } from '../agent/decide/planner';
import type { CredentialSource } from '../shared/credentials';
import type { PortalProfile } from '../shared/portal-profile';
import type { DemoPortals } from '../service/demo-portals';
import type { Lab } from '../../lab';
import type { LabHandle } from '../../lab/demo/lab-portals';
import { shownArg } from './args';
import { UsageError } from './cli-error';

/**
 * The CLI's demo-portal port, filled in lazily: the portal lab (its servers, attack pages and the
 * compromised adversary planner) is imported only when a profile may be one of its portals, so a
 * desk that files real portals never loads it (test/architecture/cli-build.test.ts reads the built
 * CLI's import graph). Every lab host sits under the reserved `.example` top-level domain (RFC
 * 2606), where no real portal can be; a profile with a host elsewhere is never a demo portal.
 *
 * `prepare` loads the lab for the profiles a command is about to run; the synchronous parts of the
 * port (`portalId`, `adversary`, `resolverRules`) answer for a `.example` profile only after it.
 */
export class DemoLoader implements DemoPortals<Lab> {
  private handle: LabHandle | undefined;
  private loading: Promise<LabHandle> | undefined;
  readonly layouts = true;

  /** Demo logins, once the lab is loaded; nothing before (no real portal is a demo portal). */
  readonly credentials: CredentialSource = {
    get: async (clientId, portalId) => (this.handle ? this.handle.credentials.get(clientId, portalId) : null),
  };

  /** Loads the lab's code when one of these profiles may be a demo portal (or when `always`). */
  async prepare(profiles: readonly PortalProfile[], always = false): Promise<void> {
    if (always || profiles.some(mayBeDemo)) await this.load();
  }

  portalId(profile: PortalProfile): string | undefined {
    return mayBeDemo(profile) ? this.loaded('portalId').portalId(profile) : undefined;
  }

  async get(): Promise<Lab> {
    return (await this.load()).get();
  }

  async bind(profile: PortalProfile): Promise<{ profile: PortalProfile; lab: Lab | undefined }> {
    if (!mayBeDemo(profile)) return { profile, lab: undefined };
    return (await this.load()).bind(profile);
  }

  async stop(): Promise<void> {
    await this.handle?.stop();
  }

  resolverRules(target?: string): string {
    return this.loaded('resolverRules').resolverRules(target);
  }

  adversary(seed: number): Planner {
    return this.loaded('adversary').adversary(seed);
  }

  /**
   * A lab another process runs ("portal-desk lab", an eval), at `--lab-url`: lab portal profiles
   * point at its port. Checks the address now (a bad one is a usage error before anything runs).
   */
  async running(url: string): Promise<{ hostname: string; port: number; hostResolverRules: string; bind(profile: PortalProfile): PortalProfile }> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--lab-url must be a web address such as http://127.0.0.1:41234 (got "${shownArg(url)}")`);
    }
    const port = Number(parsed.port);
    if (parsed.protocol !== 'http:' || !Number.isInteger(port) || port < 1) throw new UsageError(`--lab-url must be http://HOST:PORT (got "${shownArg(url)}")`);
    const handle = await this.load();
    return {
      hostname: parsed.hostname,
      port,
      hostResolverRules: `MAP * ${parsed.hostname}`,
      bind: (profile) => {
        const bound = handle.bindAt(profile, port);
        if (!bound) throw new UsageError(`--lab-url applies to lab portals only; "${profile.id}" is not one`);
        return bound;
      },
    };
  }

  /**
   * The demo-portal port of a console whose lab another process runs, at `--lab-url`: lab portal
   * profiles are bound to that lab and its demo logins are offered; the lab is never started or
   * stopped here, and its layouts and other variants are its owner's (`variant` answers null).
   */
  async runningPortals(url: string): Promise<DemoPortals> {
    const running = await this.running(url);
    const handle = this.loaded('runningPortals');
    const server = {
      port: running.port,
      hostResolverRules: running.hostResolverRules,
      variant: () => null,
      configure: () => {
        throw new UsageError(`the lab at ${url} is configured by whoever runs it`);
      },
      stop: async () => undefined,
    };
    return {
      portalId: (profile) => handle.portalId(profile),
      layouts: false,
      credentials: handle.credentials,
      get: async () => server,
      bind: async (profile) => (handle.portalId(profile) ? { profile: running.bind(profile), lab: server } : { profile, lab: undefined }),
      stop: async () => undefined,
      resolverRules: (target) => handle.resolverRules(target ?? running.hostname),
      adversary: (seed) => handle.adversary(seed),
    };
  }

  private load(): Promise<LabHandle> {
    this.loading ??= import('../../lab/demo/lab-portals').then(({ LabHandle }) => {
      this.handle = new LabHandle();
      return this.handle;
    });
    return this.loading;
  }

  private loaded(what: string): LabHandle {
    if (!this.handle) throw new Error(`DemoLoader.${what} before prepare(): the demo portals are not loaded`);
    return this.handle;
  }
}

/** Every host the profile allows is under `.example`: only then may it be a demo portal. */
function mayBeDemo(profile: PortalProfile): boolean {
  return profile.allowedHosts.length > 0 && profile.allowedHosts.every((host) => host.split(':')[0]!.toLowerCase().endsWith('.example'));
}
