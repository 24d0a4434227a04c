import type { Browser } from 'playwright-core';

/**
 * The browsers a desk (the console, a worker, a batch, an eval suite) shares between its runs, one
 * per key (e.g. the host-resolver rules it was launched with), relaunched when one dies: a browser
 * that crashed or was killed is forgotten the moment it disconnects, and the next run asking for
 * one gets a fresh browser. The run it killed ends on its own (`interrupted`, resumable).
 */
export class BrowserKeeper<K = string> {
  private readonly browsers = new Map<K, Promise<Browser>>();

  constructor(
    private readonly launch: (key: K) => Promise<Browser>,
    /** Told when a browser died and is forgotten (the next run relaunches it). */
    private readonly onLost?: (key: K) => void,
  ) {}

  /** A live browser for `key`: the one launched before while it is connected, else a new one. */
  async get(key: K): Promise<Browser> {
    const known = this.browsers.get(key);
    if (known) {
      const browser = await known.catch(() => null);
      if (browser?.isConnected()) return browser;
      this.forget(key, known);
      return this.get(key);
    }
    const launching = this.launch(key).then((browser) => {
      browser.on('disconnected', () => {
        if (this.forget(key, launching)) this.onLost?.(key);
      });
      return browser;
    });
    this.browsers.set(key, launching);
    launching.catch(() => this.forget(key, launching));
    return launching;
  }

  /** Closes every browser (its processes reaped); the keeper may launch again afterwards. */
  async closeAll(): Promise<void> {
    const all = [...this.browsers.values()];
    this.browsers.clear();
    for (const browser of all) await (await browser.catch(() => null))?.close().catch(() => undefined);
  }

  private forget(key: K, entry: Promise<Browser>): boolean {
    if (this.browsers.get(key) !== entry) return false;
    this.browsers.delete(key);
    return true;
  }
}
