import type { BrowserContext, ConsoleMessage, Page, Request } from 'playwright-core';
import type { GateRecord } from '../guard/commit-gate';
import { shorten } from '../../shared/allowed-hosts';
import type { StepEvent } from '../../shared/run';
import { maskedScreenshot } from './page-picture';

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

type Picture = { png: Uint8Array; problem?: undefined } | { png: null; problem: string };

/**
 * One picture of the page: the viewport (the after picture, once a step's actions ran and the
 * page settled) or the whole page (at a gated step, taken as the clerk is asked). A failure is
 * answered, never thrown: a picture must not end a run.
 */
export async function takePicture(page: Page, kind: 'after' | 'full page', timeoutMs = 10_000): Promise<Picture> {
  const started = performance.now();
  let problem = '';
  // A page that navigates under the picture (the submission's answer arriving as the step ends)
  // fails the picture: it is taken again of the new document.
  for (let attempt = 1; attempt <= 2; attempt++) {
    if (page.isClosed()) return { png: null, problem: `${kind} picture not taken: the page was closed` };
    const left = Math.max(1, timeoutMs - (performance.now() - started));
    try {
      return { png: await maskedScreenshot(page, { fullPage: kind === 'full page', timeout: left }) };
    } catch (err) {
      problem = (err as Error).message.split('\n')[0] ?? String(err);
      if (!/context was destroyed|navigat/i.test(problem)) break;
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, timeoutMs - (performance.now() - started)) }).catch(() => undefined);
    }
  }
  return { png: null, problem: `${kind} picture not taken: ${problem}` };
}
