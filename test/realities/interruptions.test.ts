import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObserver } from '../../src/agent/observe/observer';
import { findInterruption } from '../../src/agent/portal/interruption';
import { compareSubmission } from '../../lab';
import { EngineBench, RecordingApprovals } from '../support/engine';
import { FULL_SWEEPS } from '../support/tiers';

/** Cookie banners and survey dialogs over the portal: code declines them, the model is never asked. */

const bench = new EngineBench();
beforeAll(() => bench.start());
afterAll(() => bench.stop());

async function declining(page: Page): Promise<string | null> {
  const found = await findInterruption(await createObserver().read(page));
  return found ? `${found.control.name} in "${found.title}"` : null;
}

describe('findInterruption', () => {
  it('answers the declining button of a modal dialog only, never a look-alike on the page itself', async () => {
    const context = await bench.browser.newContext();
    const page = await context.newPage();
    await page.setContent(`<main><h1>Review</h1><button>Reject all</button><button>No thanks</button><button>Close</button></main>`);
    expect(await declining(page)).toBeNull();
    await page.setContent(`<main><button>Reject all</button></main>
      <div role="dialog" aria-modal="true" aria-labelledby="t"><h2 id="t">Your privacy</h2>
      <button>Accept all cookies</button><button>Close</button><button>Reject all cookies</button></div>`);
    // Rejecting beats closing: it is the answer that commits the client to nothing.
    expect(await declining(page)).toBe('Reject all cookies in "Your privacy"');
    await page.setContent(`<dialog open><h2>Tell us what you think</h2><button>Submit feedback</button><button>Not now</button></dialog>`);
    expect(await declining(page)).toBe('Not now in "Tell us what you think"');
    await context.close();
  });
});

describe('a lab run with a cookie banner and a survey pop-up (rules planner)', () => {
  // The original layout in the full sweeps only: per commit, the lab suite's quick sample runs each overlay on every
  // portal's original layout, held to the final approval alone (test/e2e/lab-cases.test.ts); this row adds the step log.
  it.each(FULL_SWEEPS ? (['original', 'redesigned'] as const) : (['redesigned'] as const))('on the %s layout, code declines both and the run submits once with only the final approval', async (layout) => {
    const base = bench.caseFile('power-name-change-fernandes.json');
    const caseFile = { ...base, clientId: `${base.clientId}-overlays-${layout}` };
    const approvals = new RecordingApprovals();
    const result = await bench.run(caseFile, { variant: { layout, cookieBanner: true, surveyPopup: true }, approvals });
    expect(result.status, result.reason).toBe('done');
    const steps = await result.store.listSteps(result.runId);
    const declined = steps.flatMap((s) => s.events).filter((e) => e.type === 'interruption').map((e) => e.message);
    expect(declined).toEqual(['Declined "Cookies on this service" with "Reject non-essential"', 'Declined "Quick survey" with "No thanks"']);
    // Declining is code's own click, recorded with the guard's verdict, never a model call.
    const codeClicks = steps.filter((s) => s.events.some((e) => e.type === 'interruption'));
    expect(codeClicks.every((s) => s.model === null && s.actions.length === 1 && s.actions[0]!.verdict.verdict === 'allow')).toBe(true);
    expect(approvals.asked.map((a) => a.element)).toEqual([expect.stringMatching(/submit/i)]);
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
  });
});
