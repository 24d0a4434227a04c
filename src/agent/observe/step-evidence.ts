import type { BrowserContext, ConsoleMessage, Locator, Page, Request } from 'playwright-core';
import type { GateRecord } from '../guard/commit-gate';
import { shorten } from '../../shared/allowed-hosts';
import type { StepEvent } from '../../shared/run';

/**
 * What a step keeps beyond its before picture, for the replay and the report: the after picture
 * (once its actions ran and the page settled), the full page at a gated step, the page's own
 * errors, and the commit gate's judgements as data for the requests pane. The loop calls these
 * as one small hook when it records a step.
 */

/** Most page errors kept per step (a page logging in a loop would otherwise fill the record). */
const MAX_ERRORS_PER_STEP = 20;
const MAX_MESSAGE = 300;

/** The page's own errors since the last `take`: uncaught script errors, console errors, loads that failed. */
export class PageErrorLog {
  private readonly events: StepEvent[] = [];
  private dropped = 0;
  private readonly pages = new WeakSet<Page>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Listens on every page of the context, now and later. */
  attach(context: BrowserContext): this {
    for (const page of context.pages()) this.watch(page);
    context.on('page', (page) => this.watch(page));
    return this;
  }

  watch(page: Page): void {
    if (this.pages.has(page)) return;
    this.pages.add(page);
    page.on('pageerror', (err: Error) => this.add('page_error', `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}`));
    page.on('console', (m: ConsoleMessage) => {
      // Chromium logs each failed load as a console error too; the failed load is kept once, as such.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:')) this.add('console_error', m.text());
    });
    page.on('requestfailed', (r: Request) => {
      const why = r.failure()?.errorText ?? 'failed';
      // A navigation the page or the agent moved away from is not an error of the page.
      if (why === 'net::ERR_ABORTED') return;
      this.add('load_failed', `${r.method()} ${shorten(r.url())} (${r.resourceType()}) did not load: ${why}`);
    });
  }

  private add(type: string, message: string): void {
    if (this.events.length >= MAX_ERRORS_PER_STEP) {
      this.dropped += 1;
      return;
    }
    const text = message.replace(/\s+/g, ' ').trim();
    this.events.push({ type, message: text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text, at: this.now().toISOString() });
  }

  /** The errors since the last call (and how many more were left out), for the step being recorded. */
  take(): StepEvent[] {
    const out = this.events.splice(0);
    if (this.dropped > 0) {
      out.push({ type: 'console_error', message: `${this.dropped} more page errors in this step were not kept`, at: this.now().toISOString() });
      this.dropped = 0;
    }
    return out;
  }
}

/** A commit-gate judgement as the requests pane reads it. */
export function gateRequest(record: GateRecord): NonNullable<StepEvent['request']> {
  const outcome = record.type === 'commit_approved' || record.type === 'commit_pre_approved' ? 'sent' : record.type === 'commit_denied' ? 'denied' : 'refused';
  return { method: record.method, url: shorten(record.url), outcome, rule: `commit-gate:${record.rule}` };
}

export interface StepPictureOptions {
  /** Held when a picture is taken: password and one-time-code boxes. */
  mask: (page: Page) => Locator[];
  /** The step was gated (a needs_approval verdict or a held commit request): take the full page too. */
  gated: boolean;
  timeoutMs?: number;
}

export interface StepPicturesTaken {
  after: Uint8Array | null;
  fullPage: Uint8Array | null;
  /** Why a picture could not be taken (the page was gone, it did not settle in time). */
  problems: string[];
}

/** The after picture (viewport) and, at a gated step, the full page; a failure is reported, never thrown. */
export async function takeStepPictures(page: Page, options: StepPictureOptions): Promise<StepPicturesTaken> {
  const timeout = options.timeoutMs ?? 10_000;
  const problems: string[] = [];
  const take = async (fullPage: boolean): Promise<Uint8Array | null> => {
    try {
      return await page.screenshot({ type: 'png', fullPage, mask: options.mask(page), timeout });
    } catch (err) {
      problems.push(`${fullPage ? 'full-page' : 'after'} picture not taken: ${(err as Error).message.split('\n')[0]}`);
      return null;
    }
  };
  if (page.isClosed()) return { after: null, fullPage: null, problems: ['the page was closed: no after picture'] };
  const after = await take(false);
  const fullPage = options.gated ? await take(true) : null;
  return { after, fullPage, problems };
}

/** Whether a step was gated: an action needed the clerk's approval, or the commit gate held a request for it. */
export function isGatedStep(actions: readonly { verdict: { verdict: string } }[], events: readonly StepEvent[]): boolean {
  return actions.some((a) => a.verdict.verdict === 'needs_approval') || events.some((e) => e.type === 'commit_approved' || e.type === 'commit_denied');
}
