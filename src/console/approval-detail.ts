import type { Page } from 'playwright-core';
import { compareWithCase } from '../agent/portal/review-values';
import type { CaseFile } from '../shared/case-file';
import type { ReviewRow } from '../shared/clerk';
import type { PortalProfile } from '../shared/portal-profile';

/** Inputs a picture never shows: passwords and one-time codes (as the loop masks them). */
const MASKED_INPUTS = 'input[type=password], input[autocomplete="one-time-code"]';
/** A full-page picture is cut at this height (a runaway page must not make a picture of megabytes). */
const MAX_FULL_PAGE_PX = 6000;

/**
 * What the clerk's approval will do, read from the page when it is asked: a full-page picture
 * (the card scrolls it), and on a final-review page every value the page says it will submit next
 * to the case value it came from. Read by the console only; nothing here reaches the model.
 */
interface ApprovalReading {
  fullPagePng: Buffer | null;
  review: ReviewRow[] | null;
}

export async function readApproval(page: Page, profile: PortalProfile, caseFile: CaseFile, clerkValues: Record<string, string>, timeoutMs = 4_000): Promise<ApprovalReading> {
  const [fullPagePng, review] = await Promise.all([fullPagePicture(page, timeoutMs), reviewRows(page, profile, caseFile, clerkValues, timeoutMs)]);
  return { fullPagePng, review };
}

async function fullPagePicture(page: Page, timeout: number): Promise<Buffer | null> {
  try {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const width = page.viewportSize()?.width ?? 1280;
    const clip = height > MAX_FULL_PAGE_PX ? { x: 0, y: 0, width, height: MAX_FULL_PAGE_PX } : undefined;
    return await page.screenshot({ type: 'png', fullPage: true, ...(clip ? { clip } : {}), mask: [page.locator(MASKED_INPUTS)], timeout });
  } catch {
    // Mid-navigation (a held request) a picture may not come: the card shows the loop's own one.
    return null;
  }
}

interface PageRow {
  label: string;
  value: string;
  /** The heading the row sits under ("Partner 2"): on a page that lists several people, whose row it is. */
  section?: string;
}

/** The label/value rows of a review page: `<dt>`/`<dd>` pairs and table rows headed by a `<th>`. */
async function pageRows(page: Page): Promise<{ lines: string[]; rows: PageRow[] }> {
  return page.evaluate(() => {
    const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const headings = Array.from(document.querySelectorAll('h2, h3, h4, caption, legend'));
    // The last heading before the row in document order: on a page listing several people, whose row it is.
    const sectionOf = (el: Element): { section?: string } => {
      let found: Element | undefined;
      for (const h of headings) {
        if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) found = h;
        else break;
      }
      const t = found ? text(found).slice(0, 120) : '';
      return t ? { section: t } : {};
    };
    const rows: { label: string; value: string; section?: string }[] = [];
    for (const dt of Array.from(document.querySelectorAll('dt'))) {
      let dd = dt.nextElementSibling;
      while (dd && dd.tagName !== 'DD' && dd.tagName !== 'DT') dd = dd.nextElementSibling;
      if (dd && dd.tagName === 'DD') rows.push({ label: text(dt), value: text(dd), ...sectionOf(dt) });
    }
    for (const tr of Array.from(document.querySelectorAll('tr'))) {
      const th = tr.querySelector(':scope > th');
      const td = tr.querySelector(':scope > td');
      if (th && td && tr.closest('thead') === null) rows.push({ label: text(th), value: text(td), ...sectionOf(tr) });
    }
    const lines = [document.title, ...Array.from(document.querySelectorAll('h1, h2')).map((h) => text(h))];
    return { lines, rows: rows.slice(0, 200) };
  });
}

async function reviewRows(page: Page, profile: PortalProfile, caseFile: CaseFile, clerkValues: Record<string, string>, timeout: number): Promise<ReviewRow[] | null> {
  let read: { lines: string[]; rows: PageRow[] };
  try {
    read = await withTimeout(pageRows(page), timeout);
  } catch {
    return null;
  }
  const lines = read.lines.map((l) => l.toLowerCase());
  const finalReview = profile.finalReviewPatterns.some((p) => lines.some((l) => l.includes(p.toLowerCase())));
  if (!finalReview || read.rows.length === 0) return null;
  return compareWithCase(read.rows, caseFile, clerkValues);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))]).finally(() => clearTimeout(timer));
}
