import { expect, it } from 'vitest';
import { eachStore, storeTarget } from './backends';
import { buildStep, newRun, png } from './fixtures';

const STEPS = 1000;

eachStore('a 1,000-step run', (kind) => {
  it('records and loads fast enough to replay', { timeout: 60_000 }, async () => {
    const store = await (await storeTarget(kind)).open();
    await store.createRun(newRun({ id: 'long' }));
    const shots = Array.from({ length: 50 }, (_, i) => png(i, 48)); // pages repeat: 50 distinct screenshots
    const built = Array.from({ length: STEPS }, (_, i) => buildStep('long', i, { screenshot: shots[i % 50]!, approval: i % 100 === 99 ? { decision: 'approve', by: 'Anna Byrne' } : undefined }));
    const recordStart = performance.now();
    for (const { step, png: shot } of built) await store.recordStep(step, shot);
    const recordMs = performance.now() - recordStart;

    const listStart = performance.now();
    const steps = await store.listSteps('long');
    const listMs = performance.now() - listStart;
    expect(steps).toHaveLength(STEPS);
    expect(steps[STEPS - 1]).toEqual(built[STEPS - 1]!.step);

    const verifyStart = performance.now();
    expect(await store.verifyRun('long')).toMatchObject({ ok: true, steps: STEPS, checkedScreenshots: 50 });
    const verifyMs = performance.now() - verifyStart;
    const approvalsStart = performance.now();
    expect(await store.approvals('long')).toHaveLength(10);
    const approvalsMs = performance.now() - approvalsStart;
    const bytes = JSON.stringify(steps[0]).length;

    console.log(
      `store timings [${kind}] (${STEPS} steps of ~${(bytes / 1024).toFixed(1)} KB JSON): recordStep ${(recordMs / STEPS).toFixed(2)} ms/step, ` +
        `listSteps ${listMs.toFixed(0)} ms, verifyRun ${verifyMs.toFixed(0)} ms, approvals ${approvalsMs.toFixed(0)} ms`,
    );
    // Generous bounds for a loaded CI box; the numbers above are what to watch.
    expect(listMs).toBeLessThan(5000);
    expect(verifyMs).toBeLessThan(10000);
  });
});
