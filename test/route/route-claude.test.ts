import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicPlanner } from '../../src/agent/decide/anthropic';
import { totalTokens } from '../../src/shared/run';
import { EngineBench } from '../support/engine';
import { labFormFillingModel, startMessagesApi, type MessagesApi } from '../../lab/messages-api';
import { routeRun, routeStore } from './support';

/**
 * The Claude path with learned routes, against the loopback Messages API and the real SDK: the
 * first run of a form pays calls and tokens per page; the run that follows the route it learned
 * sends no request at all. The numbers are printed for the report.
 */

let bench: EngineBench;
let api: MessagesApi | undefined;
beforeAll(async () => {
  bench = await new EngineBench().start();
});
afterAll(async () => {
  await api?.close();
  await bench?.stop();
});

describe('Claude planner and a learned route', () => {
  it('first run: calls and tokens on every page; route run: no request to the Messages API, no tokens, the same one submission', async () => {
    const routes = routeStore(bench);
    try {
      const first = bench.caseFile('tax-return-deccan-software-aug-2026.json');
      const second = bench.caseFile('tax-return-kaveri-logistics-nov-2026.json');
      let script = labFormFillingModel(first, /\b(PTX-\d{4}-\d{6})\b/);
      api = await startMessagesApi((request) => script(request));
      const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url };
      const claude = () => new AnthropicPlanner({ env });

      const learn = await routeRun(bench, first, routes, { planner: claude });
      expect(learn.status, learn.reason).toBe('done');
      const learnCalls = api.requests.length;
      const learnUsage = (await learn.store.getRun(learn.runId))!.usage;
      expect(learnCalls).toBeGreaterThan(4);
      expect(learnUsage.inputTokens + learnUsage.cacheReadTokens + learnUsage.cacheWriteTokens).toBeGreaterThan(1000);
      expect(learn.route?.update.kind).toBe('learned');

      script = labFormFillingModel(second, /\b(PTX-\d{4}-\d{6})\b/);
      const follow = await routeRun(bench, second, routes, { planner: claude });
      expect(follow.status, follow.reason).toBe('done');
      const followUsage = (await follow.store.getRun(follow.runId))!.usage;
      expect(api.requests.length - learnCalls).toBe(0);
      expect(follow.plannerCalls).toBe(0);
      expect(followUsage).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(follow.records.every((s) => s.model === null)).toBe(true);
      expect(follow.submissions).toBe(1);
      expect(follow.mismatches).toEqual([]);
      console.log(
        `claude path (loopback Messages API, tax form): first run ${learnCalls} calls, ${totalTokens(learnUsage)} tokens (in ${learnUsage.inputTokens}, cache read ${learnUsage.cacheReadTokens}, cache write ${learnUsage.cacheWriteTokens}, out ${learnUsage.outputTokens}), ${Math.round(learn.wallMs)} ms; ` +
          `route run ${api.requests.length - learnCalls} calls, ${totalTokens(followUsage)} tokens, ${Math.round(follow.wallMs)} ms (${(follow.wallMs / learn.wallMs).toFixed(2)}×)`,
      );
    } finally {
      routes.close();
    }
  }, 400_000);
});
