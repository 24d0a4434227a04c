import type { Page } from 'playwright-core';
import { maskedScreenshot } from '../agent/observe/page-picture';
import { reviewedOnPage } from '../agent/portal/review-values';
import type { CaseFile } from '../shared/case-file';
import type { ReviewRow } from '../shared/clerk';
import type { PortalProfile } from '../shared/portal-profile';

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

export async function readApproval(page: Page, profile: PortalProfile, caseFile: CaseFile, clerkValues: Record<string, string>, { fullPage = true, timeoutMs = 4_000 }: { fullPage?: boolean; timeoutMs?: number } = {}): Promise<ApprovalReading> {
  const [fullPagePng, review] = await Promise.all([fullPage ? fullPagePicture(page, timeoutMs) : null, reviewedOnPage(page, caseFile, clerkValues, { timeoutMs, finalReviewPatterns: profile.finalReviewPatterns })]);
  return { fullPagePng, review };
}

async function fullPagePicture(page: Page, timeout: number): Promise<Buffer | null> {
  try {
    return await maskedScreenshot(page, { fullPage: true, maxHeight: MAX_FULL_PAGE_PX, timeout });
  } catch {
    // Mid-navigation (a held request) a picture may not come: the card shows the loop's own one.
    return null;
  }
}

