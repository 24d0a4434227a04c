import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { launchChromium } from '../../src/agent/browser/chromium';

/** The portal lab and a Chromium that resolves its host names, started for the calling test file (or describe). */
export interface LabBrowser {
  readonly lab: Lab;
  readonly browser: Browser;
}

/** Registers the set-up on the calling file: `live.lab` and `live.browser` inside a test. */
export function useLabBrowser(): LabBrowser {
  const live = {} as { lab: Lab; browser: Browser };
  beforeAll(async () => {
    live.lab = await startLab();
    live.browser = await launchChromium({ hostResolverRules: live.lab.hostResolverRules });
  });
  afterAll(async () => {
    await live.browser?.close();
    await live.lab?.stop();
  });
  return live;
}
