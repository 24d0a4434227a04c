import { loadPortalProfile, profileFolders } from '../agent/case/portal-profiles';
import { loadCaseFromFolder } from '../console/case-folder';
import { bindDemo, type DemoPortals } from '../service/demo-portals';
import type { RunBinding } from './run-bindings';

interface RunStartSources {
  casesDir: string;
  /** Extra portal folders, searched first (the same list the console service is given). */
  portalFolders: string[];
  /** The demo portals the console service runs (shared, so the port is the same); none in the production shell. */
  demo?: DemoPortals;
}

/**
 * The client and portal a `startRun` call is for, read the way the console service reads them
 * (the case file, its portal profile, bound to the demo server's port for demo portals). Undefined when
 * the call names no readable case: the service then refuses it with the proper message.
 */
export async function runBindingFor(params: unknown, sources: RunStartSources): Promise<RunBinding | undefined> {
  const file = (params as { file?: unknown } | null | undefined)?.file;
  if (typeof file !== 'string' || file === '') return undefined;
  try {
    const caseFile = loadCaseFromFolder(sources.casesDir, file);
    const profile = loadPortalProfile(caseFile.portal, profileFolders(sources.portalFolders));
    const { profile: bound } = await bindDemo(sources.demo, profile);
    return { clientId: caseFile.clientId, portalId: profile.id, policy: bound };
  } catch {
    return undefined;
  }
}
