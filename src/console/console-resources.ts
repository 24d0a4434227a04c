import type { Browser } from 'playwright-core';
import { BrowserKeeper } from '../agent/browser/browser-keeper';
import { launchChromium } from '../agent/browser/chromium';
import type { DemoPortals } from '../service/demo-portals';
import { openVault, type KeySource, type OpenedVault } from '../vault';

interface ConsoleResourcesOptions {
  env: Record<string, string | undefined>;
  vaultDir?: string;
  keySource?: KeySource;
  /** The browser every run uses (ConsoleServiceOptions.browser); default: the machine's Chromium. */
  browser?: () => Promise<Browser>;
  demo?: DemoPortals;
}

/**
 * What the console's parts share and open only when first needed: the vault (runs' logins, the
 * settings screen, the export's secret scan) and the browsers runs open their contexts in.
 */
export class ConsoleResources {
  private vault: Promise<OpenedVault> | undefined;
  /** One shared browser per kind, relaunched when it dies (lab portals need the lab's host mapping, which would hide every real portal). */
  private readonly browsers = new BrowserKeeper<'lab' | 'plain'>(
    (key) => {
      const factory = this.o.browser;
      if (factory) return factory();
      return key === 'lab' && this.o.demo ? this.o.demo.get().then((lab) => launchChromium({ hostResolverRules: lab.hostResolverRules })) : launchChromium();
    },
    (key) => process.stderr.write(`console: the ${key === 'lab' ? 'lab portals’' : ''} browser stopped; the next run starts a new one\n`),
  );

  constructor(private readonly o: ConsoleResourcesOptions) {}

  /** The vault, opened once; a failed opening is tried again on the next call (the key may come later). */
  openedVault(): Promise<OpenedVault> {
    this.vault ??= openVault({ env: this.o.env as NodeJS.ProcessEnv, vaultDir: this.o.vaultDir, keySource: this.o.keySource }).catch((err: unknown) => {
      this.vault = undefined;
      throw err;
    });
    return this.vault;
  }

  /** The shared browser for a run's kind of portal, alive (relaunched when the last one died). */
  browserFor(kind: 'lab' | 'plain'): Promise<Browser> {
    return this.browsers.get(this.o.browser ? 'plain' : kind);
  }

  /** The console is closing: a run mid-action ends when its browser goes. */
  closeBrowsers(): Promise<void> {
    return this.browsers.closeAll();
  }
}
