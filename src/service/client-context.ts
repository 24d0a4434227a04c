import type { Browser, BrowserContext } from 'playwright-core';
import { openGuardedContext } from '../agent/guard/browser';
import type { LoginStateStore } from '../shared/credentials';
import type { PortalProfile } from '../shared/portal-profile';

/** One client's guarded browser context, signed in with the login state saved for this portal, if any. */
export async function openClientContext(browser: Browser, profile: PortalProfile, clientId: string, loginStates?: LoginStateStore): Promise<BrowserContext> {
  const saved = loginStates ? await loginStates.load(clientId, profile.id) : null;
  return openGuardedContext(browser, profile, saved ? { storageState: JSON.parse(saved) as Exclude<Parameters<Browser['newContext']>[0], undefined>['storageState'] } : {});
}
