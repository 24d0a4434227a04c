import { describe, expect, it } from 'vitest';
import { AnthropicConfigError, AnthropicPlanner, loadAnthropicConfig } from '../../../src/agent/decide/anthropic';
import { PlannerError } from '../../../src/agent/decide/planner';
import { type RecordedRequest, reply, type WireBlock } from '../../../lab/messages-api';
import { blocks, CASE, detailsPage, input, messagesOf, plannerFor, TEST_KEY, turnOf } from './fixtures';
import { useMessagesApi } from '../../support/messages-api';

const serve = useMessagesApi();

const GOOD = turnOf([{ type: 'click', ref: 'r10c4' }]);

async function failure(promise: Promise<unknown>): Promise<PlannerError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlannerError);
  return error as PlannerError;
}

describe('the anthropic planner under API errors', () => {
  it('lets the SDK retry a 429 (honouring retry-after) and then succeeds', async () => {
    const server = await serve([reply.rateLimited(5), reply.rateLimited(5), reply.toolUse(GOOD)]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const started = Date.now();
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toEqual([{ type: 'click', ref: 'r10c4' }]);
    expect(server.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The retried request is the same request.
    expect(new Set(server.requests.map((request) => request.raw)).size).toBe(1);
  });

  it('retries a 529 overloaded', async () => {
    const server = await serve([reply.overloaded(5), reply.toolUse(GOOD)]);
    const planner = plannerFor(server);
    planner.start(CASE);
    await planner.decide(input(0, detailsPage('r10')));
    expect(server.requests).toHaveLength(2);
  });

  it('gives up as unavailable when the API stays overloaded, keeping the call', async () => {
    const server = await serve([reply.overloaded(5), reply.overloaded(5), reply.overloaded(5)]);
    const planner = plannerFor(server, { maxRetries: 2 });
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/still overloaded after 2 retries \(HTTP 529\)/);
    expect(error.call).toMatchObject({ planner: 'anthropic', requestDigest: expect.stringMatching(/^sha256:/) });
    expect(server.requests).toHaveLength(3);
  });

  it('turns a 401 into an auth error after exactly one request', async () => {
    const server = await serve([reply.unauthorized(), reply.toolUse(GOOD)]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('auth');
    expect(error.message).toMatch(/^API key rejected \(HTTP 401/);
    expect(error.message).not.toContain(TEST_KEY);
    expect(error.call).not.toBeNull();
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 403 into an auth error too', async () => {
    const server = await serve([reply.error(403, 'This key may not use this model')]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('auth');
    expect(server.requests).toHaveLength(1);
  });

  it('sends an invalid tool input back as an error tool_result, then accepts the corrected turn', async () => {
    const bad = reply.toolUse({ reasoning: 'fill it', actions: [{ type: 'fill', ref: 'r10c1' }], want_screenshot: false }, { usage: { input_tokens: 100, output_tokens: 10 } });
    const server = await serve([bad, reply.toolUse(turnOf([{ type: 'fill', ref: 'r10c1', field: 'business_name' }]), { usage: { input_tokens: 120, output_tokens: 12 } })]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toEqual([{ type: 'fill', ref: 'r10c1', field: 'business_name' }]);
    expect(result.call?.usage).toMatchObject({ inputTokens: 220, outputTokens: 22 });

    const retry = server.requests[1] as RecordedRequest;
    const messages = messagesOf(retry);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual(bad.body['content']);
    const [result0] = blocks(messages[2]) as [WireBlock];
    expect(result0).toMatchObject({ type: 'tool_result', is_error: true, tool_use_id: (bad.body['content'] as WireBlock[])[0]?.['id'] });
    expect(String(result0['content'])).toMatch(/actions\.0/);
    expect(blocks(messages[2])).toHaveLength(1);
  });

  it('counts unusable replies per run and stops with invalid_output at the limit', async () => {
    const bad = () => reply.toolUse({ reasoning: 'x', actions: [], want_screenshot: null });
    const server = await serve([bad(), reply.text('I would click Continue.'), bad(), reply.toolUse(GOOD)]);
    const planner = plannerFor(server, { maxInvalidOutputs: 3 });
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('invalid_output');
    expect(error.message).toMatch(/3 unusable replies in this run \(limit 3\)/);
    expect(error.call?.requestDigest).toMatch(/^sha256:/);
    expect(server.requests).toHaveLength(3);
    // The text-only reply was answered with a reminder to call the tool.
    const third = messagesOf(server.requests[2] as RecordedRequest);
    expect(JSON.stringify(third[third.length - 1])).toContain('had no act_on_page call');
  });

  it('never sends an empty reply back as an empty assistant message: the same turn goes again, asking for the call', async () => {
    const server = await serve([reply.toolUse(GOOD), reply.empty(), reply.empty(), reply.toolUse(GOOD)]);
    const planner = plannerFor(server, { maxInvalidOutputs: 3 });
    planner.start(CASE);
    const first = await planner.decide(input(0, detailsPage('r10')));
    const second = await planner.decide(input(1, detailsPage('r11'), [{ action: first.turn.actions[0]!, verdict: { verdict: 'allow', rule: 'guard', reason: 'test' }, outcome: { status: 'done', ms: 1 } }]));
    expect(second.turn).toEqual({ reasoning: GOOD.reasoning, actions: GOOD.actions });
    expect(server.requests).toHaveLength(4);
    // Every request is the first turn, its answer and the same page turn: no empty assistant message in between.
    for (const request of server.requests.slice(2)) {
      expect(messagesOf(request).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      const [result] = blocks(messagesOf(request)[2]) as [WireBlock];
      expect(blocks(messagesOf(request)[2])).toHaveLength(1);
      // The reminder goes inside the tool_result (text after a tool_result teaches empty turns), once.
      expect(result).toMatchObject({ type: 'tool_result' });
      expect(JSON.stringify(result).split('had no act_on_page call')).toHaveLength(2);
    }
  });

  it('leaves out of the echo an empty text block the reply held (a request may not carry one)', async () => {
    const withEmptyText = reply.toolUse(GOOD);
    withEmptyText.body['content'] = [{ type: 'text', text: '', citations: null }, ...(withEmptyText.body['content'] as WireBlock[])];
    const server = await serve([withEmptyText, reply.toolUse(GOOD)]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const first = await planner.decide(input(0, detailsPage('r10')));
    await planner.decide(input(1, detailsPage('r11'), [{ action: first.turn.actions[0]!, verdict: { verdict: 'allow', rule: 'guard', reason: 'test' }, outcome: { status: 'done', ms: 1 } }]));
    expect(server.requests).toHaveLength(2);
    expect(blocks(messagesOf(server.requests[1]!)[1]).map((block) => block.type)).toEqual(['tool_use']);
  });

  it('answers a call to an unknown tool with an error result that carries the reminder, and nothing after it', async () => {
    const server = await serve([reply.toolUse({ url: 'https://x.test' }, { name: 'browse' }), reply.toolUse(GOOD)]);
    const planner = plannerFor(server);
    planner.start(CASE);
    await planner.decide(input(0, detailsPage('r10')));
    const answer = blocks(messagesOf(server.requests[1]!)[2]);
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(String(answer[0]?.['content'])).toContain('Unknown tool "browse"');
    expect(String(answer[0]?.['content'])).toContain('had no act_on_page call');
  });

  it('gives a reply the time its max_tokens may take: a slow, legitimate reply is not cut off and sent again', async () => {
    const server = await serve([
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return reply.toolUse(GOOD);
      },
    ]);
    // 1 s configured; 256 tokens may take about 7 s at the SDK's own rate (an hour per 128,000 tokens).
    const planner = plannerFor(server, { timeoutMs: 1_000, maxTokens: 256, maxTokensCeiling: 256, maxRetries: 1 });
    planner.start(CASE);
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toEqual(GOOD.actions);
    expect(server.requests).toHaveLength(1);
  });

  it('retries once with more tokens after a max_tokens stop', async () => {
    const server = await serve([reply.maxTokens(), reply.toolUse(GOOD)]);
    const planner = plannerFor(server, { maxTokens: 1_000, maxTokensCeiling: 4_000 });
    planner.start(CASE);
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toHaveLength(1);
    expect(server.requests.map((request) => request.body.max_tokens)).toEqual([1_000, 2_000]);
    // The cut-off reply was not kept: the retry is the same conversation.
    expect(messagesOf(server.requests[1] as RecordedRequest)).toEqual(messagesOf(server.requests[0] as RecordedRequest));
  });

  it('explains a second max_tokens stop', async () => {
    const server = await serve([reply.maxTokens(), reply.maxTokens()]);
    const planner = plannerFor(server, { maxTokens: 1_000, maxTokensCeiling: 4_000 });
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('max_tokens');
    expect(error.message).toMatch(/cut off at max_tokens \(2000\).*Raise ANTHROPIC_MAX_TOKENS/);
    expect(error.call).not.toBeNull();
  });

  it("keeps max_tokens within the model's documented output maximum (the API refuses more with a 400), and does not retry at it", async () => {
    const server = await serve([reply.maxTokens(), reply.toolUse(GOOD)]);
    const planner = plannerFor(server, { model: 'claude-3-haiku-20240307', maxTokens: 8_192, maxTokensCeiling: 32_000 });
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('max_tokens');
    expect(error.message).toMatch(/cut off at max_tokens \(4096\), the most claude-3-haiku-20240307 can give.*use a model with a larger output/);
    expect(server.requests.map((request) => request.body.max_tokens)).toEqual([4_096]);
  });

  it('explains a refusal with what the API reported', async () => {
    const server = await serve([reply.refusal({ category: 'general_harms', explanation: 'The request was declined.' })]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('refusal');
    expect(error.message).toMatch(/refused to continue \(category: general_harms\): The request was declined\./);
    expect(error.call?.responseDigest).toMatch(/^sha256:/);
  });

  it('sends a request again once when the reply body is cut off, then calls it unavailable', async () => {
    const server = await serve([reply.truncated(reply.toolUse(GOOD)), reply.toolUse(GOOD), reply.truncated(reply.toolUse(GOOD), 0.3), reply.truncated(reply.toolUse(GOOD), 0.8)]);
    const planner = plannerFor(server, { maxRetries: 0 });
    planner.start(CASE);
    const first = await planner.decide(input(0, detailsPage('r10')));
    expect(first.turn.actions).toEqual(GOOD.actions);
    expect(server.requests[1]?.raw).toBe(server.requests[0]?.raw);
    const error = await failure(planner.decide(input(1, detailsPage('r11'))));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/twice sent a reply that is not complete JSON .* Resume the run later\./);
  });

  it('continues a turn the API paused (pause_turn) by sending it back unchanged, and keeps the whole turn', async () => {
    const server = await serve([reply.pauseTurn({ thinking: 'Reading the long page first.' }), reply.toolUse(GOOD), reply.toolUse(turnOf([{ type: 'click', ref: 'r11c4' }]), { thinking: 'Next page.' })]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toEqual(GOOD.actions);
    const continued = messagesOf(server.requests[1] as RecordedRequest);
    expect(continued.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(blocks(continued[1]).map((block) => block.type)).toEqual(['thinking']);
    // The next step sends the paused start and its continuation as one assistant turn, thinking first.
    await planner.decide(input(1, detailsPage('r11'), [], []));
    const next = messagesOf(server.requests[2] as RecordedRequest);
    expect(blocks(next[1]).map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(server.requests).toHaveLength(3);
  });

  it('sends a refused request to the fallback model (ANTHROPIC_FALLBACK_MODEL), and the run stays on it', async () => {
    const server = await serve([reply.refusal({ category: 'cyber' }), reply.toolUse(GOOD), reply.toolUse(GOOD)]);
    const planner = new AnthropicPlanner({ env: { ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_FALLBACK_MODEL: 'claude-opus-4-8' } });
    planner.start(CASE);
    const result = await planner.decide(input(0, detailsPage('r10')));
    expect(result.turn.actions).toEqual(GOOD.actions);
    expect(result.call?.model).toBe('claude-opus-4-8');
    await planner.decide(input(1, detailsPage('r11')));
    expect(server.requests.map((request) => request.body.model)).toEqual(['claude-sonnet-5-5', 'claude-opus-4-8', 'claude-opus-4-8']);
  });

  it('without a fallback, or when the fallback refuses too, a refusal stops the turn', async () => {
    const server = await serve([reply.refusal(), reply.refusal()]);
    const planner = new AnthropicPlanner({ env: { ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_FALLBACK_MODEL: 'claude-opus-4-8' } });
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('refusal');
    expect(server.requests).toHaveLength(2);
  });

  it('calls a 400 rejected (a fault in the request, not the service): resuming would not help', async () => {
    const server = await serve([reply.error(400, 'messages.0: bad block')]);
    const planner = plannerFor(server);
    planner.start(CASE);
    const error = await failure(planner.decide(input(0, detailsPage('r10'))));
    expect(error.kind).toBe('rejected');
  });

  it('answers a pending tool_use after a failed step, so the next step can go on', async () => {
    const server = await serve([reply.toolUse(GOOD), reply.overloaded(5), reply.toolUse(turnOf([{ type: 'press', key: 'Enter' }]))]);
    const planner = plannerFor(server, { maxRetries: 0 });
    planner.start(CASE);
    await planner.decide(input(0, detailsPage('r10')));
    await failure(planner.decide(input(1, detailsPage('r11'))));
    const result = await planner.decide(input(2, detailsPage('r12')));
    expect(result.turn.actions).toEqual([{ type: 'press', key: 'Enter' }]);
    const last = messagesOf(server.requests[2] as RecordedRequest);
    expect(last).toHaveLength(3);
    expect(JSON.stringify(last[2])).toContain('read r12');
  });
});

describe('the anthropic planner configuration', () => {
  it('refuses to start without an API key, before any request', async () => {
    const server = await serve([reply.toolUse(GOOD)]);
    expect(() => new AnthropicPlanner({ env: { ANTHROPIC_BASE_URL: server.url } })).toThrow(AnthropicConfigError);
    expect(() => new AnthropicPlanner({ env: {} })).toThrow(/ANTHROPIC_API_KEY is not set.*No request was made/);
    expect(server.requests).toHaveLength(0);
  });

  it('reads ANTHROPIC_MAX_TOKENS, and names it when it is not a usable number', () => {
    expect(loadAnthropicConfig({}, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_MAX_TOKENS: '4096' }).maxTokens).toBe(4096);
    expect(() => loadAnthropicConfig({}, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_MAX_TOKENS: 'lots' })).toThrow(/ANTHROPIC_MAX_TOKENS must be a whole number/);
    expect(() => loadAnthropicConfig({}, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_MAX_TOKENS: '10' })).toThrow(/maxTokens/);
  });

  it('reads the environment, lets options win, and validates', () => {
    const config = loadAnthropicConfig({ maxTurns: 10 }, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://litellm.local:4000', ANTHROPIC_MODEL: 'claude-opus-5-5' });
    expect(config).toMatchObject({ apiKey: 'k', baseURL: 'http://litellm.local:4000', model: 'claude-opus-5-5', maxTurns: 10, maxInvalidOutputs: 3, maxRetries: 4 });
    expect(loadAnthropicConfig({ model: 'claude-haiku-4-5' }, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-opus-5-5' }).model).toBe('claude-haiku-4-5');
    expect(() => loadAnthropicConfig({ tokenBudget: 10 }, { ANTHROPIC_API_KEY: 'secret-key-value' })).toThrow(/tokenBudget/);
    expect(() => loadAnthropicConfig({ baseURL: 'not a url' }, { ANTHROPIC_API_KEY: 'secret-key-value' })).not.toThrow(/secret-key-value/);
  });
});
