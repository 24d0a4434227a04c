import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission } from '../../../lab';
import { labFormFillingModel, reply } from '../../../lab/messages-api';
import { caseFrom, RealityBench, stepsIntact } from '../../realities/support';
import { useMessagesApi } from '../../support/messages-api';

/**
 * A run stopped by the model service (here: 529 overloaded on every retry the SDK makes) ends
 * `interrupted`, not `failed`, with the reason; resuming it once the service is back finishes
 * the form with one submission. Real lab, real Chromium, real SQLite, the real SDK.
 */
describe('a run the model service stops', () => {
  const bench = new RealityBench();
  const serve = useMessagesApi();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it('529 after the SDK retries: interrupted with the reason; resume finishes with one submission', async () => {
    const caseFile = caseFrom('shops-renewal-anand-bakery.json');
    const filler = labFormFillingModel(caseFile, /\b(SHP-\d{4}-\d{6})\b/, { thinking: true });
    let answered = 0;
    let down = false;
    const api = await serve((request) => {
      if (down) return reply.overloaded(5);
      answered += 1;
      if (answered === 3) down = true;
      return filler(request);
    });
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url };
    const first = await bench.run(caseFile, { planner: 'anthropic', env });
    expect(first.status, first.reason).toBe('interrupted');
    expect(first.reason).toMatch(/Stopped by the model service at step \d+ \(unavailable\): The Messages API is still overloaded after 4 retries \(HTTP 529\)/);
    expect(first.reason).toContain(`portal-desk resume ${first.runId}`);
    const overloaded = api.requests.length - answered;
    expect(overloaded).toBe(5); // one request and the SDK's 4 retries
    expect((await first.store.getRun(first.runId))?.status).toBe('interrupted');
    expect(bench.lab.submissions({ clientId: caseFile.clientId })).toHaveLength(0);

    down = false;
    const resumed = await bench.run(caseFile, { planner: 'anthropic', env, store: first.store, keepVariant: true, request: { runId: first.runId } });
    expect(resumed.status, resumed.reason).toBe('done');
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(caseFile.fields, submissions[0]!.fields)).toEqual([]);
    expect(resumed.applicationNumber).toBe(submissions[0]!.applicationNumber);
    expect((await stepsIntact(first.store, first.runId)).ok).toBe(true);
    expect((await first.store.auditTrail(first.runId)).map((e) => e.type)).toContain('resumed');
  }, 300_000);
});
