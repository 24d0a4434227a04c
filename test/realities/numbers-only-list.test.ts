import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../src/agent/browser/chromium';
import { ProgressTracker } from '../../src/agent/loop/progress-tracker';
import type { CaseFile } from '../../src/shared/case-file';
import type { ProgressRecord } from '../../src/shared/run';
import type { RunRecorder } from '../../src/shared/recorder';
import { startPermitsPortal, type PermitsPortal } from '../../lab/permits/server';
import { permitsProfile } from '../../lab/permits/profile';

/**
 * Exactly once on a portal whose "My applications" lists numbers only (the permits portal: no
 * reference, no date): before a submission is sent again, the list is read; a number there that
 * nothing ties to a case may be this case's, so the form is not submitted again (the click waits,
 * then the run stops for the clerk). Before, such a list read as "absent" and the form was sent a
 * second time. An empty list still lets the submission go (the outage case of the faults suite).
 * Real Chromium, the real permits portal; the progress record is kept in memory.
 */
describe('an applications list of numbers only, after a submission that may have gone through', () => {
  let portal: PermitsPortal;
  let browser: Browser;
  beforeAll(async () => {
    portal = await startPermitsPortal();
    browser = await launchChromium({ hostResolverRules: portal.hostResolverRules });
  });
  afterAll(async () => {
    await browser?.close();
    await portal?.stop();
  });

  const caseFile = { caseId: 'permits-numbers-only', clientId: 'numbers-only', portal: 'permits', task: 'trade-permit', fields: { applicant_name: 'Anand Joshi' }, aliases: {}, declarations: [] } as unknown as CaseFile;

  /** A tracker whose record says a submit was attempted earlier, with no number kept. */
  async function trackerAfterAnAttempt(): Promise<ProgressTracker> {
    let record: ProgressRecord | null = { clientId: caseFile.clientId, portal: 'permits', task: caseFile.task, caseId: caseFile.caseId, sectionsDone: [], submitAttemptedAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
    const recorder = { getProgress: async () => record, saveProgress: async (p: ProgressRecord) => void (record = p) } as unknown as RunRecorder;
    const tracker = new ProgressTracker(recorder, caseFile, 'run-numbers-only', () => new Date());
    await tracker.load();
    return tracker;
  }

  it('an empty list: the submission may go again', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${portal.origin}/`);
    expect(await (await trackerAfterAnAttempt()).beforeSubmit(page, permitsProfile(portal.port))).toEqual({ kind: 'submit' });
    await page.context().close();
  });

  it('a number the session filed: not submitted again, the number named', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${portal.origin}/`);
    // The earlier submission went through; its confirmation was lost.
    expect(await page.evaluate(async () => (await fetch('/apply/submit', { method: 'POST' })).status)).toBe(200);
    const [filed] = portal.submissions();
    expect(filed?.applicationNumber).toMatch(/^PRM-\d{4}-\d{6}$/);
    const decision = await (await trackerAfterAnAttempt()).beforeSubmit(page, permitsProfile(portal.port));
    expect(decision).toEqual({ kind: 'unsure', reason: `the applications list shows ${filed!.applicationNumber} with nothing that ties it to a case, so it may be this case's` });
    await page.context().close();
  });
});
