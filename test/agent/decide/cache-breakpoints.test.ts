import { afterEach, describe, expect, it } from 'vitest';
import { CONSERVATIVE_CACHE_MINIMUM, minimumCacheableTokens, runCacheMinimum } from '../../../src/agent/decide/anthropic/cache-breakpoints';
import { breakpointPrefixes, type MessagesApi, reply, startMessagesApi } from '../../../lab/messages-api';
import { CASE, control, input, observation, plannerFor, ran, turnOf } from './fixtures';

let api: MessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A long form page: many named text boxes with hints, so a few turns pass 4,096 tokens. */
function longPage(read: string) {
  return observation({
    readId: read,
    text: Array.from({ length: 30 }, (_, i) => `Hint ${i + 1}: write the detail exactly as it appears on the registration certificate issued by the labour department.`).join('\n'),
    controls: Array.from({ length: 24 }, (_, i) => control({ ref: `${read}c${i + 1}`, role: 'textbox', name: `Detail number ${i + 1} of the establishment`, required: true })),
  });
}

/** Runs `turns` planner turns against a scripted model; returns the usage the SDK saw per call. */
async function converse(model: string, turns: number, server: MessagesApi) {
  const planner = plannerFor(server, { model });
  planner.start(CASE);
  const usages: { input: number; read: number; write: number }[] = [];
  let previous: ReturnType<typeof ran> = [];
  for (let step = 0; step < turns; step += 1) {
    const result = await planner.decide(input(step, longPage(`r${step + 1}`), previous));
    const usage = result.call?.usage;
    usages.push({ input: usage?.inputTokens ?? -1, read: usage?.cacheReadTokens ?? -1, write: usage?.cacheWriteTokens ?? -1 });
    previous = ran(result.turn);
  }
  return { planner, usages };
}

const script = () => Array.from({ length: 12 }, (_, i) => reply.toolUse(turnOf([{ type: 'press', key: 'Tab' }], `turn ${i}`)));

describe('cache breakpoints where they pay', () => {
  it('knows the documented minimums by model id and is conservative for ids it does not know', () => {
    expect(minimumCacheableTokens('claude-sonnet-4-6')).toBe(1_024);
    expect(minimumCacheableTokens('claude-sonnet-4-5-20250929')).toBe(1_024);
    expect(minimumCacheableTokens('anthropic/claude-sonnet-4-6')).toBe(1_024);
    expect(minimumCacheableTokens('claude-opus-4-6')).toBe(4_096);
    expect(minimumCacheableTokens('claude-opus-4-5-20251101')).toBe(4_096);
    expect(minimumCacheableTokens('claude-haiku-4-5-20251001')).toBe(4_096);
    expect(minimumCacheableTokens('claude-sonnet-5-5')).toBe(CONSERVATIVE_CACHE_MINIMUM);
    expect(minimumCacheableTokens('claude-sonnet-4-60')).toBe(CONSERVATIVE_CACHE_MINIMUM);
    expect(CONSERVATIVE_CACHE_MINIMUM).toBe(4_096);
    // A fallback with a larger minimum decides for the run, so the fixed breakpoints never move.
    expect(runCacheMinimum('claude-sonnet-4-6', 'claude-haiku-4-5')).toBe(4_096);
    expect(runCacheMinimum('claude-sonnet-4-6', undefined)).toBe(1_024);
  });

  it('the loopback caches nothing for a breakpoint on a prefix under the minimum, as the API does', async () => {
    api = await startMessagesApi([reply.text('a'), reply.text('b'), reply.text('c')]);
    const post = (system: string) =>
      fetch(`${api!.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 10, system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'hi' }] }),
      }).then(async (r) => ((await r.json()) as { usage: Record<string, number> }).usage);
    const short = await post('x'.repeat(4 * 1_000));
    expect(short).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const long = 'y'.repeat(4 * 5_000);
    const first = await post(long);
    const second = await post(long);
    expect(first['cache_creation_input_tokens']).toBeGreaterThanOrEqual(5_000);
    expect(second['cache_read_input_tokens']).toBe(first['cache_creation_input_tokens']);
    expect(second['cache_creation_input_tokens']).toBe(0);
  });

  it('Sonnet 4.6 (1,024): tool, system, opening turn and conversation are cached, every prefix over the minimum, and read back', async () => {
    const server = (api = await startMessagesApi(script()));
    const { usages } = await converse('claude-sonnet-4-6', 4, server);
    for (const request of server.requests) {
      const prefixes = breakpointPrefixes(request.body);
      expect(prefixes.length, `request ${request.index}`).toBe(4);
      for (const prefix of prefixes) expect(prefix, `request ${request.index}`).toBeGreaterThanOrEqual(1_024);
    }
    expect(usages[0]!.write).toBeGreaterThan(0);
    expect(usages[0]!.read).toBe(0);
    // Each later call reads the whole previous request back and writes only what is new.
    for (const usage of usages.slice(1)) {
      expect(usage.read).toBeGreaterThan(usages[0]!.write - 1);
      expect(usage.write).toBeLessThan(usage.read);
    }
    // A second run on the same model reads tools + system prompt (the same for every run) from the cache.
    const second = await converse('claude-sonnet-4-6', 1, server);
    expect(second.usages[0]!.read).toBeGreaterThanOrEqual(breakpointPrefixes(server.requests[0]!.body)[1]!);
  });

  it('Haiku 4.5 (4,096): no breakpoint on tool, system or opening turn (each under 4,096); the conversation one once the request is long enough', async () => {
    const server = (api = await startMessagesApi(script()));
    const { usages } = await converse('claude-haiku-4-5', 5, server);
    const first = server.requests[0]!;
    const tool = (first.body.tools?.[0] ?? {}) as Record<string, unknown>;
    expect(tool['cache_control']).toBeUndefined();
    expect(JSON.stringify(first.body.system)).not.toContain('cache_control');
    expect(JSON.stringify(first.body.messages?.[0])).not.toContain('cache_control');
    for (const request of server.requests) {
      for (const prefix of breakpointPrefixes(request.body)) expect(prefix, `request ${request.index}`).toBeGreaterThanOrEqual(4_096);
    }
    const cachedFrom = server.requests.findIndex((request) => breakpointPrefixes(request.body).length > 0);
    // Once the request is long enough (a first page can be: the opening turn then stays uncached, the breakpoint goes on the conversation).
    expect(cachedFrom).toBeGreaterThanOrEqual(0);
    expect(usages[cachedFrom]!.write).toBeGreaterThan(4_096);
    for (const usage of usages.slice(cachedFrom + 1)) expect(usage.read).toBeGreaterThan(4_096);
  });
});
