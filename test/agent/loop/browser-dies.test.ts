import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BrowserKeeper } from '../../../src/agent/browser/browser-keeper';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import { bindLabProfile, startLab, type Lab } from '../../../lab';
import { LabCredentials } from '../../../lab/demo/lab-portals';
import { executeRun, type FinishedRun } from '../../../src/service/run-service';
import type { CaseFile } from '../../../src/shared/case-file';
import type { StepRecord } from '../../../src/shared/run';
import { openStore, type Store } from '../../../src/store';
import { CASES_DIR, RecordingApprovals, ScriptedInputs } from '../../support/engine';
import { loadCaseFile } from '../../../src/agent/case/case-files';

/** Kills the browser's own process (SIGKILL), as a crash would end it: nothing is closed politely. */
async function killBrowser(browser: Browser): Promise<void> {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  const pid = processInfo.find((p) => p.type === 'browser')?.id;
  expect(pid).toBeGreaterThan(0);
  const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
  process.kill(pid!, 'SIGKILL');
  await gone;
}

/**
 * A desk outlives its browser (issue 28): the runs share one browser through the desk's keeper (as
 * the console, the worker, batch and the eval suites do); Chromium is killed for real, mid-run and
 * between runs. Real Chromium, the lab portals, a real SQLite store.
 */
describe('a desk outlives its browser', () => {
  let lab: Lab;
  let store: Store;
  let keeper: BrowserKeeper<string>;
  const lost: string[] = [];
  beforeAll(async () => {
    lab = await startLab();
    store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-browser-dies-')), 'runs.sqlite'));
    keeper = new BrowserKeeper((rules) => launchChromium({ hostResolverRules: rules }), (key) => lost.push(key));
  });
  afterAll(async () => {
    await keeper.closeAll();
    store.close();
    await lab.stop();
  });

  const caseOf = (file: string): CaseFile => loadCaseFile(join(CASES_DIR, file));

  async function run(caseFile: CaseFile, options: { runId?: string; onStep?: (step: StepRecord, browser: Browser) => void } = {}): Promise<FinishedRun> {
    const browser = await keeper.get(lab.hostResolverRules);
    lab.configure(caseFile.clientId, {});
    return executeRun(
      { store, browser, approvals: new RecordingApprovals(), inputs: new ScriptedInputs(() => null), credentials: new LabCredentials() },
      {
        caseFile,
        profile: bindLabProfile(loadPortalProfile(caseFile.portal), lab.port),
        planner: 'rules',
        approveMode: 'ask',
        ...(options.runId ? { runId: options.runId } : {}),
        listener: { step: (step) => options.onStep?.(step, browser) },
      },
    );
  }

  it('killed mid-run: that run ends interrupted and resumes to done in a new browser, one submission', async () => {
    const caseFile = caseOf('tax-return-kaveri-logistics-nov-2026.json');
    let killing: Promise<void> | undefined;
    const first = await run(caseFile, { onStep: (step, browser) => void (step.index === 3 && (killing ??= killBrowser(browser))) });
    await killing;
    expect(first.status, first.reason).toBe('interrupted');
    expect(first.reason).toMatch(/The browser stopped during the run/);
    expect((await store.getRun(first.runId))?.status).toBe('interrupted');
    expect(lost).toHaveLength(1);

    const resumed = await run(caseFile, { runId: first.runId });
    expect(resumed.status, resumed.reason).toBe('done');
    expect(resumed.runId).toBe(first.runId);
    const submissions = lab.submissions({ clientId: caseFile.clientId });
    expect(submissions.map((s) => s.applicationNumber)).toEqual([resumed.applicationNumber]);
    expect((await store.getRun(first.runId))?.status).toBe('done');
  }, 300_000);

  it('killed between runs: the next run gets a new browser and ends done', async () => {
    const before = await keeper.get(lab.hostResolverRules);
    await killBrowser(before);
    const next = await run(caseOf('shops-renewal-meera-kulkarni.json'));
    expect(next.status, next.reason).toBe('done');
    const now = await keeper.get(lab.hostResolverRules);
    expect(now).not.toBe(before);
    expect(now.isConnected()).toBe(true);
  }, 180_000);
});
