import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimumCacheableTokens } from '../../src/agent/decide/anthropic/cache-breakpoints';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { executeRun } from '../../src/service/run-service';
import { bindLabProfile } from '../../lab';
import { LabCredentials } from '../../lab/demo/lab-portals';
import { EngineBench, RecordingApprovals, ScriptedInputs } from '../support/engine';
import { breakpointPrefixes, labFormFillingModel, startMessagesApi } from '../../lab/messages-api';
import { FULL_SWEEPS } from '../support/tiers';

/**
 * What one form costs on the Claude path, per lab portal: calls and input / cached / output tokens,
 * measured with the real planner and SDK against the loopback Messages API (tokens = characters / 4
 * of what Portal Desk really sends; cache reads and writes as the API reports them for prefixes over
 * the model's minimum). The README's cost section quotes these lines.
 */
const FORMS: [string, RegExp][] = [
  ['shops-renewal-anand-bakery.json', /\b(SHP-\d{4}-\d{6})\b/],
  ['tax-return-deccan-software-aug-2026.json', /\b(PTX-\d{4}-\d{6})\b/],
  ['power-name-change-deshpande.json', /\b(PWR-\d{4}-\d{6})\b/],
];

let bench: EngineBench;
beforeAll(async () => {
  bench = await new EngineBench().start();
}, 60_000);
afterAll(() => bench?.stop());

const lines: string[] = [];
afterAll(() => console.log(`one form with --model anthropic (loopback Messages API):\n  ${lines.join('\n  ')}`));

describe('the cost of one form with --model anthropic (loopback Messages API)', () => {
  // The default model on every portal; Sonnet 4.6 (1,024-token minimum: all four breakpoints pay) on one. Per commit
  // (the suite's time, issue 27) Sonnet 4.6 on tax here, and the default model on shops in test/e2e/cli-run.test.ts
  // (the same form through the CLI, its breakpoints checked): both models, two portals; `npm run test:full` measures
  // all four forms the README quotes.
  const every: [string, string, RegExp][] = [...FORMS.map(([file, number]) => ['claude-sonnet-5-5', file, number] as [string, string, RegExp]), ['claude-sonnet-4-6', FORMS[0]![0], FORMS[0]![1]]];
  const runs = FULL_SWEEPS ? every : [['claude-sonnet-4-6', FORMS[1]![0], FORMS[1]![1]] as [string, string, RegExp]];
  for (const [model, file, number] of runs) {
    it(`${model}, ${file}: done, every breakpoint over the model's minimum, the cache read`, async () => {
      const caseFile = bench.caseFile(file);
      const api = await startMessagesApi(labFormFillingModel(caseFile, number));
      try {
        const store = bench.store();
        bench.lab.configure(caseFile.clientId, {});
        const run = await executeRun(
          {
            store,
            browser: bench.browser,
            approvals: new RecordingApprovals(),
            inputs: new ScriptedInputs(() => null),
            credentials: new LabCredentials(),
            anthropic: { model },
            env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: api.url },
          },
          { caseFile, profile: bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port), planner: 'anthropic', approveMode: 'ask' },
        );
        expect(run.status, `${file}: ${run.reason}`).toBe('done');
        const usage = (await store.getRun(run.runId))!.usage;
        const minimum = minimumCacheableTokens(model);
        for (const request of api.requests) for (const prefix of breakpointPrefixes(request.body)) expect(prefix).toBeGreaterThanOrEqual(minimum);
        expect(usage.cacheReadTokens).toBeGreaterThan(0);
        lines.push(
          `${model} ${caseFile.portal}: ${api.requests.length} calls, ${usage.inputTokens} input + ${usage.cacheReadTokens} cache read + ${usage.cacheWriteTokens} cache write, ${usage.outputTokens} output, $${usage.costUsd.toFixed(3)}`,
        );
      } finally {
        await api.close();
      }
    }, 600_000);
  }
});
