import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFrom, occurrences, RealityBench } from './support';
import { filesUnder } from '../vault/temp-vault';

/**
 * Saved login state per client and portal, encrypted at rest, reused by the next run of the
 * same client: while the portal's session is still valid, that run does not sign in.
 */
describe('saved login state', () => {
  const bench = new RealityBench();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it('a second run of the same client skips the sign-in; the state is stored encrypted', async () => {
    const first = caseFrom('power-name-change-sunita-sharma.json');
    const run1 = await bench.run(first, { loginStates: bench.loginStates });
    expect(run1.status, run1.reason).toBe('done');
    const steps1 = await run1.store.listSteps(run1.runId);
    expect(steps1.filter((s) => s.events.some((e) => e.type === 'sign_in'))).toHaveLength(1);

    const saved = await bench.loginStates.load(first.clientId, first.portal);
    expect(saved).not.toBeNull();
    const cookie = (JSON.parse(saved!) as { cookies: { name: string; value: string }[] }).cookies.find((c) => c.name === 'lab_session');
    expect(cookie?.value).toBeTruthy();
    // Sealed on disk: the session cookie is nowhere in the vault folder in clear.
    for (const file of filesUnder(`${bench.dir}/vault`)) expect(occurrences(file.bytes, cookie!.value)).toBe(0);

    // Another case of the same client (next time's filing) on the same portal.
    const second = { ...first, caseId: `${first.caseId}-again` };
    const run2 = await bench.run(second, { loginStates: bench.loginStates, keepVariant: true });
    expect(run2.status, run2.reason).toBe('done');
    const steps2 = await run2.store.listSteps(run2.runId);
    expect(steps2.filter((s) => s.events.some((e) => e.type === 'sign_in'))).toEqual([]);
    expect(steps2[0]!.observation.hasPasswordField).toBe(false);

    // A client without saved state on the same browser still has to sign in: contexts are per client. Only its
    // sign-in is asked about, so its run stops at the step cap a few pages in (a whole form would show nothing more).
    const other = caseFrom('power-name-change-reddy-farm.json');
    const run3 = await bench.run(other, { loginStates: bench.loginStates, request: { limits: { maxSteps: 3 } } });
    expect(run3.reason).toMatch(/Step cap reached \(3 steps\)/);
    const steps3 = await run3.store.listSteps(run3.runId);
    expect(steps3.filter((s) => s.events.some((e) => e.type === 'sign_in'))).toHaveLength(1);
  }, 600_000);
});
