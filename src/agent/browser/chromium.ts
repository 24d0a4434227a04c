import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { MemoryCa } from '../../base/memory-ca';
import type { EgressTls } from '../guard/egress-proxy';

/** Flags that keep Chromium quiet on a closed network; it is never allowed to phone home. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // WebRTC sends UDP straight from the network stack, past any proxy: a page could reach any
  // address (a hard-coded ICE candidate needs no signalling). With this policy WebRTC may only
  // use TCP through the context's proxy, where the guard's egress lock refuses it.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

interface LaunchOptions {
  /** Path of the Chromium binary (default: $PORTAL_DESK_CHROMIUM or /usr/bin/chromium). */
  executablePath?: string;
  headless?: boolean;
  /**
   * Chromium `--host-resolver-rules`, e.g. "MAP * 127.0.0.1" so that realistic lab
   * hostnames resolve to the loopback lab and nothing can reach outside.
   */
  hostResolverRules?: string;
  /** Where Chromium writes downloads (the attack suite watches it); default: a temporary folder Playwright removes. */
  downloadsPath?: string;
  /**
   * A certificate authority (PEM) the portal's certificates may chain to besides the system's
   * roots: only the https lab's own, made at lab start. The guard's egress proxy verifies the
   * portal against it, and this browser accepts it too (for tests that browse the lab without the guard).
   */
  portalCa?: string;
}

const RESOLVER_RULES = new WeakMap<Browser, string>();
const EGRESS_TLS = new WeakMap<Browser, EgressTls>();

/**
 * The `--host-resolver-rules` a browser was launched with by `launchChromium`, or undefined (no
 * rules, or a browser from elsewhere). The guard's egress proxy connects on the browser's behalf
 * and applies the same rules, so a lab name reaches the lab through the proxy as it would directly.
 */
export function hostResolverRulesOf(browser: Browser): string | undefined {
  return RESOLVER_RULES.get(browser);
}

/**
 * The certificate authority `launchChromium` made for a browser (its egress proxies end the
 * browser's TLS with it) and what they trust for the portal; undefined for a browser from elsewhere.
 */
export function egressTlsOf(browser: Browser): EgressTls | undefined {
  return EGRESS_TLS.get(browser);
}

export function chromiumPath(explicit?: string): string {
  const path = explicit ?? process.env.PORTAL_DESK_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium was not found at ${path}. Install Debian's chromium (apt-get install -y chromium) or set PORTAL_DESK_CHROMIUM.`,
    );
  }
  return path;
}

/**
 * Launches the machine's Chromium through playwright-core. Never downloads a browser.
 *
 * Each launch makes its own certificate authority (`MemoryCa`, key in memory only) and tells this
 * browser alone to accept certificates chaining to it (`--ignore-certificate-errors-spki-list`
 * with the CA's SPKI hash; Playwright always gives Chromium a `--user-data-dir`, without which
 * Chromium ignores the flag). The guard's egress proxies of this browser's contexts end its TLS
 * with it, and verify the portal themselves.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const ca = await MemoryCa.make();
  const spki = [ca.spkiHash, ...(options.portalCa ? [MemoryCa.spkiHashOf(options.portalCa)] : [])];
  const args = [...CHROMIUM_FLAGS, `--ignore-certificate-errors-spki-list=${spki.join(',')}`];
  if (options.hostResolverRules) args.push(`--host-resolver-rules=${options.hostResolverRules}`);
  // playwright-core is loaded with the first launch: a command that never opens a browser (a refusal, verify, replay) does not pay for it.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath(options.executablePath),
    headless: options.headless ?? true,
    args,
    ...(options.downloadsPath ? { downloadsPath: options.downloadsPath } : {}),
  });
  if (options.hostResolverRules) RESOLVER_RULES.set(browser, options.hostResolverRules);
  EGRESS_TLS.set(browser, { ca, ...(options.portalCa ? { extraTrust: [options.portalCa] } : {}) });
  return browser;
}
