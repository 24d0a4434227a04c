import type { Frame, Page, Request } from 'playwright-core';
import { pageCall } from '../observe/page-function';
import { QUIET_DOM_SOURCE } from '../observe/page-code.generated';

/**
 * Letting the page settle after an action, so the next observation sees its result:
 * 1. a navigation the action started is waited for until it commits and reaches
 *    `domcontentloaded` (up to `loadTimeoutMs`);
 * 2. then the DOM must stay free of mutations for `quietMs` and no document/XHR/fetch request may
 *    be in flight, for at most `capMs` (long polling or animations never block longer).
 */

export interface SettleOptions {
  /** How long the DOM must stay unchanged (default 100 ms). */
  quietMs?: number;
  /** Upper bound for the quiet wait, navigation load excluded (default 1500 ms). */
  capMs?: number;
  /** Upper bound for a started navigation to commit and load (default 15 s). */
  loadTimeoutMs?: number;
  /**
   * Another typing action follows at once: return without the quiet-DOM wait when the action
   * started no request and no navigation (its synchronous handlers have run already). The last
   * action of the run gets the full wait; a ref the page replaced meanwhile answers unknown_ref.
   */
  moreTypingFollows?: boolean;
}

const TRACKED = new Set(['document', 'xhr', 'fetch']);

/** Watches requests and main-frame navigations from just before an action until it has settled. */
export class PageActivity {
  private readonly inflight = new Set<Request>();
  private navigationRequests = 0;
  private committed = false;
  private readonly onRequest = (request: Request): void => {
    if (!TRACKED.has(request.resourceType())) return;
    this.inflight.add(request);
    if (request.isNavigationRequest() && request.frame() === this.page.mainFrame()) this.navigationRequests++;
  };
  private readonly onDone = (request: Request): void => {
    if (!this.inflight.delete(request)) return;
    if (request.isNavigationRequest() && request.frame() === this.page.mainFrame()) this.navigationRequests = Math.max(0, this.navigationRequests - 1);
  };
  private readonly onNavigated = (frame: Frame): void => {
    if (frame === this.page.mainFrame()) this.committed = true;
  };

  constructor(private readonly page: Page) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onDone);
    page.on('requestfailed', this.onDone);
    page.on('framenavigated', this.onNavigated);
  }

  /** A main-frame navigation request is out and its document has not committed yet. */
  get navigationPending(): boolean {
    return this.navigationRequests > 0 && !this.committed;
  }

  get navigated(): boolean {
    return this.committed;
  }

  get requestsInFlight(): number {
    return this.inflight.size;
  }

  /** Marks what has been seen so far as handled (after waiting for a navigation's load). */
  acknowledgeNavigation(): void {
    this.committed = false;
    this.navigationRequests = 0;
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onDone);
    this.page.off('requestfailed', this.onDone);
    this.page.off('framenavigated', this.onNavigated);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until the page has settled after an action; returns the milliseconds spent. */
export async function settle(page: Page, activity: PageActivity, options: SettleOptions = {}): Promise<number> {
  const quietMs = options.quietMs ?? 100;
  const capMs = options.capMs ?? 1_500;
  const loadTimeoutMs = options.loadTimeoutMs ?? 15_000;
  const started = performance.now();
  if (options.moreTypingFollows && !activity.navigationPending && !activity.navigated && activity.requestsInFlight === 0) return 0;
  let deadline = started + capMs;

  for (let round = 0; round < 20; round++) {
    if (activity.navigationPending || activity.navigated) {
      const loadStart = performance.now();
      while (activity.navigationPending && performance.now() - loadStart < loadTimeoutMs) await sleep(15);
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, loadTimeoutMs - (performance.now() - loadStart)) }).catch(() => undefined);
      activity.acknowledgeNavigation();
      // The new document gets its own quiet window.
      deadline = Math.max(deadline, performance.now() + capMs);
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0) break;
    const quiet = await quietDom(page.mainFrame(), quietMs, remaining);
    if (quiet === 'navigated' || activity.navigationPending || activity.navigated) continue;
    if (activity.requestsInFlight === 0) break;
    await sleep(20);
  }
  return Math.round(performance.now() - started);
}

async function quietDom(frame: Frame, quietMs: number, capMs: number): Promise<boolean | 'navigated'> {
  let timer: NodeJS.Timeout | undefined;
  // A page that stalls its timers must not stall the agent.
  const guard = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), capMs + 250);
  });
  try {
    return await Promise.race([frame.evaluate(pageCall(QUIET_DOM_SOURCE, { quietMs, capMs })) as Promise<boolean>, guard]);
  } catch {
    // The document went away under the evaluate: a navigation.
    return 'navigated';
  } finally {
    clearTimeout(timer);
  }
}
