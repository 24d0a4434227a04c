import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/agent/decide/anthropic/conversation';
import { pageBlock, renderObservation, reviewPage, textToSay, untrustedBlock } from '../../../src/agent/decide/anthropic/page-block';
import { openStore } from '../../../src/store';
import type { StepRecord } from '../../../src/shared/run';
import { EngineBench, RecordingApprovals } from '../../support/engine';
import { recordedShopsRun } from '../../support/recorded-run';

/**
 * The lab's real "Check your answers" pages, as the model reads them: each review row once
 * (label: value), no "Change" link per row. Reached by the rules planner; the page is the one read
 * of the step whose submit the clerk was asked about.
 */
const SHOPS_RECORDED = 'shops-renewal-anand-bakery.json';
const CASES = [SHOPS_RECORDED, 'tax-return-deccan-software-aug-2026.json', 'power-name-change-deshpande.json'];

let bench: EngineBench;
beforeAll(async () => {
  bench = await new EngineBench().start();
}, 60_000);
afterAll(() => bench?.stop());

/**
 * The steps of a run of `file` on `layout` up to its review page. The shops case on the original layout is the run
 * several files read (recorded once per vitest run: test/support/recorded-run.ts; its clerk approved the submit);
 * the others are run here, the clerk denying the submit, so nothing is submitted.
 */
async function stepsTo(file: string, layout: 'original' | 'redesigned'): Promise<StepRecord[]> {
  if (file === SHOPS_RECORDED && layout === 'original') {
    const recorded = await recordedShopsRun(bench);
    const store = openStore(recorded.db);
    try {
      return await store.listSteps(recorded.runId);
    } finally {
      store.close();
    }
  }
  const caseFile = bench.caseFile(file);
  // The recorded run may have submitted this client's case on this bench's lab: nothing more is submitted now.
  const before = bench.lab.submissions({ clientId: caseFile.clientId }).length;
  const run = await bench.run(caseFile, { variant: { layout }, approvals: new RecordingApprovals('deny') });
  expect(bench.lab.submissions({ clientId: caseFile.clientId })).toHaveLength(before);
  return run.store.listSteps(run.runId);
}

describe('the lab review pages, said once', () => {
  it('three portals in the original layout, shops in the redesigned: every case value still said, per-row Change links gone, tokens measured', async () => {
    const measured: string[] = [];
    for (const file of CASES) {
      // The redesigned layout has one Change link per section, not per row: one portal shows it is left as it was.
      for (const layout of file.startsWith('shops') ? (['original', 'redesigned'] as const) : (['original'] as const)) {
        const caseFile = bench.caseFile(file);
        const steps = await stepsTo(file, layout);
        const review = [...steps].reverse().find((s) => s.actions.some((a) => a.verdict.verdict === 'needs_approval'))?.observation;
        expect(review?.url, `${file} ${layout}`).toMatch(/\/apply\/review$/);
        const now = pageBlock(review!);
        const before = untrustedBlock(renderObservation(review!, { reviewRows: false }));
        for (const [field, value] of Object.entries(caseFile.fields)) {
          if (typeof value === 'string' && value.length >= 4 && before.includes(value)) expect(now, `${file} ${layout} ${field}`).toContain(value);
        }
        if (layout === 'original') {
          const rows = reviewPage(review!, textToSay(review!));
          expect(rows?.rows.length, `${file}`).toBeGreaterThanOrEqual(20);
          for (const ref of rows!.rowLinks) expect(now).not.toContain(`${ref} link`);
          expect(now).not.toMatch(/^Change$/m);
          expect(estimateTokens(now)).toBeLessThan(0.5 * estimateTokens(before));
        } else {
          expect(now).toBe(before);
        }
        measured.push(`${caseFile.portal}/${layout}: ${estimateTokens(before)} → ${estimateTokens(now)} tokens`);
      }
    }
    console.log(`review page block (chars/4): ${measured.join('; ')}`);
  }, 180_000);
});
