import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDebuggerTransport } from '../../src/agent/browser/cdp-transport';
import { compareSubmission, startLab } from '../../lab';
import { EngineBench, RecordingApprovals } from '../support/engine';
import { PipeChromium } from './support/pipe-chromium';

/**
 * The engine, unchanged, on pages it reaches only through the debugger-shaped transport (as it
 * will inside Electron): a whole lab case, from sign-in to the submitted application, with the
 * browser watchdogs (network lock, redirect lock over newCDPSession), the observer and the
 * executor. (The console's screencast is checked in cdp-transport.test.ts: with its acks paced,
 * Chromium paces frame production too, which slows every action in plain Chromium as well, and
 * the engine's fixed 5 s action timeouts do not survive that on a loaded 2-core machine.)
 */

const bench = new EngineBench();
let pipe: PipeChromium;
const browserCalls = new Set<string>();

beforeAll(async () => {
  bench.lab = await startLab();
  pipe = await PipeChromium.launch({ hostResolverRules: bench.lab.hostResolverRules });
  const transport = createDebuggerTransport({ host: pipe, version: await pipe.version(), onBrowserCall: (m) => browserCalls.add(m) });
  bench.browser = await chromium.connectOverCDP(transport, { timeout: 30_000 });
});

afterAll(async () => {
  await bench.stop();
  await pipe?.close();
});

describe('a lab case through the in-process transport', () => {
  it('is submitted once, equal to the case, with the one mandatory approval', { timeout: 240_000 }, async () => {
    const caseFile = bench.caseFile('shops-renewal-anand-bakery.json');
    const approvals = new RecordingApprovals();
    const result = await bench.run(caseFile, { approvals });

    expect(result.reason).toMatch(/^Submitted: application number/);
    expect(result.status).toBe('done');
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
    expect(approvals.asked.map((a) => a.element)).toEqual([expect.stringMatching(/submit/i)]);
    expect((await result.store.verifyRun(result.runId)).ok).toBe(true);
    // Every page the engine used was a page the host opened, and it was closed with the run's context.
    expect(pipe.opened.length).toBeGreaterThan(0);
    expect(pipe.opened.every((p) => p.closed)).toBe(true);
    // What the engine needed at browser level, all answered by the transport itself.
    expect([...browserCalls].sort()).toEqual(
      expect.arrayContaining(['Browser.getVersion', 'Target.setAutoAttach', 'Target.getTargetInfo', 'Target.createBrowserContext', 'Target.createTarget', 'Target.attachToBrowserTarget']),
    );
  });
});
