import type { Planner } from '../agent/decide/planner';
import type { CredentialSource } from '../shared/credentials';
import type { PortalProfile } from '../shared/portal-profile';

/** The layouts a demo portal can serve a client (the console's start form offers them). */
type DemoLayout = 'original' | 'redesigned';

/** A running demo-portal server, as the product sees it. */
interface DemoServer {
  readonly port: number;
  /** Chromium's `--host-resolver-rules` value that sends every hostname to the demo server. */
  readonly hostResolverRules: string;
  /** The layout the server gives the client; null for a server another process runs, whose owner sets it. */
  variant(clientId: string): { readonly layout: DemoLayout } | null;
  /** Sets the client's variant for the next run (only where `variant` answers). */
  configure(clientId: string, variant: { layout: DemoLayout }): unknown;
  stop(): Promise<void>;
}

/**
 * The demo-portal port: built-in demo portals on loopback (the portal lab, `lab/`, outside the
 * product's `src`). The CLI's commands and a demo build of the shell fill it in
 * (`lab/demo/lab-portals.ts`); the production shell passes none, so there a profile is never bound
 * to a demo server, demo logins are never offered and the red-team planner cannot be made.
 */
export interface DemoPortals<Server extends DemoServer = DemoServer> {
  /** The demo portal a profile names when every host it allows is that portal's, else undefined. */
  portalId(profile: PortalProfile): string | undefined;
  /** Whether a run here may choose a demo portal's layout: false where another process runs the demo server (`console --lab-url`), whose owner sets it. */
  readonly layouts: boolean;
  /** Demo logins for the demo portals' accounts (offered after the vault, which wins). */
  readonly credentials: CredentialSource;
  /** The demo server, started once on first need and shared by every run of this process. */
  get(): Promise<Server>;
  /** A demo portal's profile bound to the running server's port, with the server; others unchanged. */
  bind(profile: PortalProfile): Promise<{ profile: PortalProfile; lab: Server | undefined }>;
  stop(): Promise<void>;
  /** `--host-resolver-rules` for a browser that also reaches real portals: only the demo's names go to `target`. */
  resolverRules(target?: string): string;
  /** The deliberately compromised planner of the attack suite: it obeys the page, so demo portals only. */
  adversary(seed: number): Planner;
}

/** A portal profile, bound to the demo server when it is one of its portals. */
export async function bindDemo(demo: DemoPortals | undefined, profile: PortalProfile): Promise<{ profile: PortalProfile; lab: DemoServer | undefined }> {
  return demo ? demo.bind(profile) : { profile, lab: undefined };
}
