import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import { bindLabProfile, startLab, type Lab } from '../../../lab';
import { LabCredentials } from '../../../lab/demo/lab-portals';
import { executeRun, type FinishedRun } from '../../../src/service/run-service';
import type { StepRecord } from '../../../src/shared/run';
import { openStore, type Store } from '../../../src/store';
import { CASES_DIR, RecordingApprovals, ScriptedInputs, workerBrowser } from '../../support/engine';

/**
 * Every wait has a deadline (issue 29): the run's time limit covers page work and store calls, not
 * only model requests (test/e2e/time-limit-cli.test.ts). A portal page whose script never yields
 * again, and a store call that never returns: each run ends `interrupted` by its limit, naming what
 * it was doing, its page's session is closed, and the desk's browser serves the next page at once.
 * The run's clock is injected: once the work hangs, the test moves the clock past the limit
 * instead of sleeping through it. Real Chromium, the lab, a real SQLite store.
 */
const LIMIT_MS = 120_000;

describe('work that hangs ends by the run’s time limit', () => {
  let lab: Lab;
  let browser: Browser;
  let store: Store;

  beforeAll(async () => {
    lab = await startLab();
    browser = await workerBrowser(lab);
    store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-hung-')), 'runs.sqlite'));
  });
  afterAll(async () => {
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
    store.close();
    await lab.stop();
  });

  /** A shops run on `runStore`, its clock `skew` ms ahead once `hang` has done its part (called as each step is recorded). */
  async function run(runStore: Store, hang: (step: StepRecord, later: () => void) => void): Promise<FinishedRun> {
    const caseFile = loadCaseFile(join(CASES_DIR, 'shops-renewal-anand-bakery.json'));
    lab.configure(caseFile.clientId, {});
    let skew = 0;
    const later = () => void setTimeout(() => (skew = LIMIT_MS + 1000), 1500);
    return executeRun(
      { store: runStore, browser, approvals: new RecordingApprovals(), inputs: new ScriptedInputs(() => null), credentials: new LabCredentials() },
      {
        caseFile,
        profile: bindLabProfile(loadPortalProfile(caseFile.portal), lab.port),
        planner: 'rules',
        approveMode: 'ask',
        limits: { maxSteps: 40, timeLimitMs: LIMIT_MS },
        now: () => new Date(Date.now() + skew),
        listener: { step: (step) => hang(step, later) },
      },
    );
  }

  /** The desk's browser still opens and reads a page at once, and keeps no session of the run. */
  async function browserStillServes(): Promise<void> {
    expect(browser.contexts()).toHaveLength(0);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<p>still here</p>');
    expect(await page.locator('p').innerText({ timeout: 5000 })).toBe('still here');
    await context.close();
  }

  it('a page whose script never yields: interrupted while reading the page, the page closed', { timeout: 120_000 }, async () => {
    const finished = await run(store, (step, later) => {
      if (step.index !== 1) return;
      const page = browser.contexts().flatMap((c) => c.pages())[0]!;
      // The portal's own script, from now on, never gives the page's thread back.
      void page.evaluate(() => void setTimeout(() => {
        for (;;) {
          // spins
        }
      }, 0)).then(later);
    });
    expect(finished.status, finished.reason).toBe('interrupted');
    expect(finished.reason).toMatch(/^Time limit reached \(120 s of working time[^)]*\) while reading the page at step 2; nothing more was done/);
    expect(finished.reason).toContain(`portal-desk resume ${finished.runId}`);
    const stored = await store.getRun(finished.runId);
    expect(stored?.status).toBe('interrupted');
    expect(stored?.reason).toBe(finished.reason);
    expect(lab.submissions({ clientId: 'anand-bakery' })).toEqual([]);
    await browserStillServes();
  });

  it('a store call that never returns: interrupted while recording the step, nothing written after it', { timeout: 120_000 }, async () => {
    let held = false;
    const hanging = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'recordStep') {
          return (step: StepRecord, ...rest: unknown[]) => {
            if (step.index === 2) {
              held = true;
              setTimeout(() => (skewAhead = true), 0);
              return new Promise(() => undefined);
            }
            return (target.recordStep as (...args: unknown[]) => Promise<void>).call(target, step, ...rest);
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    let skewAhead = false;
    let moved = false;
    const finished = await run(hanging, (_step, later) => {
      // Steps 0 and 1 are recorded; step 2's write hangs. The clock moves once it is held.
      if (!moved) {
        moved = true;
        const wait = setInterval(() => {
          if (!skewAhead) return;
          clearInterval(wait);
          later();
        }, 50);
      }
    });
    expect(held).toBe(true);
    expect(finished.status, finished.reason).toBe('interrupted');
    expect(finished.reason).toMatch(/^Time limit reached \(120 s of working time[^)]*\) while recording step 2 in the store; nothing more was done/);
    const steps = await store.listSteps(finished.runId);
    expect(steps.map((s) => s.index)).toEqual([0, 1]);
    expect((await store.getRun(finished.runId))?.status).toBe('interrupted');
    await browserStillServes();
  });
});
