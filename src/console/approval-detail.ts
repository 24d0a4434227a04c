import type { Page } from 'playwright-core';
import { maskedScreenshot } from '../agent/observe/page-picture';
import { reviewedOnPage } from '../agent/portal/review-values';
import type { CaseFile } from '../shared/case-file';
import type { ApprovalGate, ApprovalRequest, ReviewRow } from '../shared/clerk';
import type { PortalProfile } from '../shared/portal-profile';
import type { Store } from '../store';
import type { ClerkDesk } from './clerk-desk';

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

/** The reading of the approval a run asked at `step`, kept with the live run (LiveRun.approval). */
export interface AskedApproval extends ApprovalReading {
  step: number;
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

/** The kept reading when it is the pending approval's: one read for an earlier approval is not shown. */
export function pendingReading(kept: AskedApproval | undefined, pending: ApprovalRequest | null): AskedApproval | undefined {
  return kept && pending && kept.step === pending.step ? kept : undefined;
}

/** What a live run (LiveRun) holds for its approvals: its page, what it runs, and where the reading is kept. */
interface ApprovingRun {
  page?: Page;
  profile: PortalProfile;
  caseFile: CaseFile;
  approval?: AskedApproval;
}

interface ApprovalDetailsOptions {
  desk: ClerkDesk;
  store: Store;
  /** The run live in the console, whose page is read. */
  live: (runId: string) => ApprovingRun | undefined;
  /** Told once the reading is kept (the run's card shows it). */
  read: (runId: string) => Promise<void>;
}

/**
 * The clerk's approval gate for every console run: the card goes to the clerk desk at once, and
 * what the approval will do is read from the run's page beside it, for the card (approvalDetail)
 * and its full-page picture (approvalPicture).
 */
export class ApprovalDetails {
  constructor(private readonly o: ApprovalDetailsOptions) {}

  gate(): ApprovalGate {
    return {
      request: ({ fullPageBase64, ...req }) => {
        // The whole page stays here (the card loads it by its own call); the card itself goes to the clerk.
        const answer = this.o.desk.request(req);
        void this.read(req, fullPageBase64 ? Buffer.from(fullPageBase64, 'base64') : null);
        return answer;
      },
    };
  }

  /** The full-page picture of the run's pending approval, when one was taken. */
  picture(runId: string): Buffer | null {
    return pendingReading(this.o.live(runId)?.approval, this.o.desk.pendingApproval(runId))?.fullPagePng ?? null;
  }

  private async read(req: ApprovalRequest, gatedFullPage: Buffer | null): Promise<void> {
    const live = this.o.live(req.runId);
    if (!live) return;
    const run = await this.o.store.getRun(req.runId).catch(() => null);
    const clerkValues = run ? ((JSON.parse(run.caseJson) as { clerkValues?: Record<string, string> }).clerkValues ?? {}) : {};
    // With the run's own whole-page picture in hand, the page is only read for its review rows.
    const reading = live.page ? await readApproval(live.page, live.profile, live.caseFile, clerkValues, { fullPage: gatedFullPage === null }) : { review: null, fullPagePng: null };
    if (this.o.desk.pendingApproval(req.runId)?.step !== req.step) return;
    // The run's own whole-page picture (taken before the action, the page steady) comes first; mid-navigation the console's may not come.
    live.approval = { step: req.step, review: reading.review ?? req.request?.review ?? null, fullPagePng: gatedFullPage ?? reading.fullPagePng };
    await this.o.read(req.runId);
  }
}
