import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFrom, RealityBench, ScriptedInputs, stepsIntact } from './support';

/**
 * A CAPTCHA or a "verify you are human" page is never solved and never turned into a text
 * prompt: the run ends `blocked` with reason bot_challenge, a screenshot and a hand-off line.
 */
describe('bot checks end the run blocked, over to the clerk', () => {
  const bench = new RealityBench();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it.each([
    ['signin', 'a reCAPTCHA frame on the sign-in page', 'shops-renewal-meera-kulkarni.json'],
    ['form', 'a "Verify you are human" page before the form', 'power-name-change-fernandes.json'],
  ] as const)('captcha=%s (%s): blocked bot_challenge, screenshot kept, InputSource never asked, nothing submitted', async (captcha, _what, file) => {
    const caseFile = caseFrom(file);
    const inputs = new ScriptedInputs(() => '123456');
    const lines: string[] = [];
    const run = await bench.run(caseFile, { variant: { captcha }, inputs, listener: { log: (l) => lines.push(l) } });

    expect(run.status, run.reason).toBe('blocked');
    expect(run.reason).toMatch(/^bot_challenge: /);
    expect(inputs.asked).toEqual([]);
    expect(bench.lab.submissions({ clientId: caseFile.clientId })).toEqual([]);

    const steps = await run.store.listSteps(run.runId);
    const last = steps.at(-1)!;
    expect(last.model).toBeNull();
    expect(last.events.some((e) => e.type === 'bot_challenge')).toBe(true);
    expect(last.screenshotHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await run.store.getScreenshot(last.screenshotHash!)).not.toBeNull();
    // Never handed to the model: no step of the run called a planner on the challenge page.
    expect(steps.filter((s) => s.model !== null)).toEqual([]);
    expect(lines.filter((l) => l.startsWith('HAND-OFF: '))).toHaveLength(1);
    expect((await run.store.getRun(run.runId))?.status).toBe('blocked');
    expect((await stepsIntact(run.store, run.runId)).ok).toBe(true);
  }, 240_000);
});
