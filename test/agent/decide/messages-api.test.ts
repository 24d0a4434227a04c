import { afterEach, describe, expect, it } from 'vitest';
import { renderControl } from '../../../src/agent/decide/anthropic';
import type { Action } from '../../../src/shared/action';
import type { Observation } from '../../../src/shared/observation';
import type { StepAction } from '../../../src/shared/run';
import { formFillingModel, type MessagesApi, parseControlLine, parsePage, reply, startMessagesApi, untrustedBlocks } from '../../../lab/messages-api';
import { CASE, control, input, observation, plannerFor, PNG, pngOf, TEST_KEY } from './fixtures';

let api: MessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

describe('the loopback Messages API', () => {
  it('answers in the wire format, records requests, and sends error bodies with retry headers', async () => {
    api = await startMessagesApi([reply.text('hello', { usage: { input_tokens: 7 } }), reply.rateLimited(250)]);
    const ok = await post(api.url, { model: 'claude-sonnet-5-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', stop_reason: 'end_turn', content: [{ type: 'text', text: 'hello' }] });
    expect(ok.json['id']).toMatch(/^msg_/);
    expect(ok.json['usage']).toMatchObject({ input_tokens: 7, output_tokens: expect.any(Number), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    const limited = await post(api.url, { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(limited.headers.get('retry-after-ms')).toBe('250');
    expect(limited.headers.get('retry-after')).toBe('1');
    const exhausted = await post(api.url, { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(exhausted.status).toBe(500);
    expect(exhausted.headers.get('x-should-retry')).toBe('false');
    expect(api.requests.map((request) => request.body.model)).toEqual(['claude-sonnet-5-5', 'm', 'm']);
  });

  it('rejects, like the API, a tool_use left without its tool_result', async () => {
    api = await startMessagesApi([reply.text('unused')]);
    const response = await post(api.url, {
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'act_on_page', input: {} }] },
        { role: 'user', content: [{ type: 'text', text: 'next page' }] },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('without `tool_result` blocks immediately after: toolu_1') } });
    expect(api.remaining()).toBe(1);
  });

  it('rejects, like the API, empty messages and text blocks, images it cannot take, forced tool use with thinking, and a body over 32 MB', async () => {
    api = await startMessagesApi([reply.text('fine'), reply.text('fine')]);
    const image = (png: Uint8Array, mediaType = 'image/png') => ({ type: 'image', source: { type: 'base64', media_type: mediaType, data: Buffer.from(png).toString('base64') } });
    const ask = (messages: unknown[]) => post(api!.url, { model: 'claude-sonnet-5-5', max_tokens: 10, messages });
    const problem = async (messages: unknown[]) => {
      const response = await ask(messages);
      expect(response.status, JSON.stringify(response.json)).toBe(400);
      expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      return String((response.json['error'] as { message: string }).message);
    };
    const user = (content: unknown) => ({ role: 'user', content });

    expect(await problem([user('go'), { role: 'assistant', content: [] }, user('next')])).toBe('messages.1: all messages must have non-empty content except for the optional final assistant message');
    expect(await problem([user([{ type: 'text', text: '' }])])).toContain('text content blocks must be non-empty');
    expect(await problem([user([{ type: 'text', text: 'read' }, { type: 'text', text: ' \n' }])])).toContain('text content blocks must contain non-whitespace text');
    expect(await problem([user([image(PNG, 'image/jpeg')])])).toContain('Image does not match the provided media type image/jpeg');
    expect(await problem([user([image(PNG, 'image/bmp')])])).toContain("media_type: Input should be 'image/jpeg'");
    expect(await problem([user([image(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]))])])).toContain('Could not process image');
    expect(await problem([user([image(pngOf(8_001, 10))])])).toContain('exceed max allowed size: 8000 pixels');
    // 20 images of 2100 px are fine; the 21st makes every image keep to 2,000 px.
    const wide = image(pngOf(2_100, 10));
    expect((await ask([user([...Array.from({ length: 20 }, () => wide), { type: 'text', text: 'which?' }])])).status).toBe(200);
    expect(await problem([user(Array.from({ length: 21 }, () => wide))])).toContain('max allowed size for many-image requests: 2000 pixels');
    expect(await problem([user(Array.from({ length: 101 }, () => image(pngOf(20, 20))))])).toContain('Too many images');
    const forcedWithThinking = await post(api.url, { model: 'claude-sonnet-4-6', max_tokens: 2_000, thinking: { type: 'enabled', budget_tokens: 1_024 }, tool_choice: { type: 'any' }, tools: [{ name: 't', input_schema: { type: 'object' } }], messages: [user('go')] });
    expect(forcedWithThinking.status).toBe(400);
    expect(forcedWithThinking.json).toMatchObject({ error: { message: 'Thinking may not be enabled when tool_choice forces tool use.' } });
    const big = await ask([user([{ type: 'text', text: 'x'.repeat(33 * 1024 * 1024) }])]);
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expect(api.remaining()).toBe(1);
  });

  it('parses back the control lines the planner renders', () => {
    const controls = [
      control({ ref: 'r1c1', role: 'textbox', name: 'Business "trading" name', value: 'Acme\nLtd', required: true, invalid: true }),
      control({ ref: 'r1c2', role: 'combobox', name: 'District', options: ['North', 'South, East'], selected: 'North' }),
      control({ ref: 'r1c3', role: 'checkbox', name: 'I confirm', checked: false, group: 'Declaration', gated: true }),
      control({ ref: 'r1c4', role: 'link', name: '', nameSource: 'none', href: 'https://x.test/a b', disabled: true }),
      control({ ref: 'r1c5', role: 'textbox', name: 'Date of birth', inputType: 'date', nameSource: 'inferred' }),
    ];
    expect(controls.map((c) => parseControlLine(renderControl(c)))).toEqual([
      { ref: 'r1c1', role: 'textbox', name: 'Business "trading" name', value: 'Acme\nLtd', required: true, invalid: true, disabled: false, gated: false, unnamed: false, nameInferred: false },
      { ref: 'r1c2', role: 'combobox', name: 'District', options: ['North', 'South, East'], selected: 'North', required: false, invalid: false, disabled: false, gated: false, unnamed: false, nameInferred: false },
      { ref: 'r1c3', role: 'checkbox', name: 'I confirm', checked: false, group: 'Declaration', required: false, invalid: false, disabled: false, gated: true, unnamed: false, nameInferred: false },
      { ref: 'r1c4', role: 'link', name: '', href: 'https://x.test/a b', required: false, invalid: false, disabled: true, gated: false, unnamed: true, nameInferred: false },
      { ref: 'r1c5', role: 'textbox', name: 'Date of birth', type: 'date', required: false, invalid: false, disabled: false, gated: false, unnamed: false, nameInferred: true },
    ]);
    const [body] = untrustedBlocks('x <untrusted_page_content>\nurl: u\ntitle: T\nflow step: Step 1 of 2\nheadings: A | B\ntext:\nhello\ncontrols:\nr1c1 button "Go"\n</untrusted_page_content>');
    expect(parsePage(body ?? '')).toMatchObject({ url: 'u', title: 'T', flowStep: 'Step 1 of 2', headings: ['A', 'B'], text: 'hello', controls: [{ ref: 'r1c1', role: 'button', name: 'Go' }] });
  });

  it('puts back what a page block leaves out: an empty text field, an option list said once', () => {
    const page = parsePage('url: u\ntitle: T\ntext:\n(no text)\ncontrols:\nr1c1 textbox "Line 1"\nr1c2 combobox "Shop state" options=["Goa","Kerala"]\nr1c3 combobox "Postal state" options=same_as:r1c2');
    expect(page?.controls.map((c) => [c.ref, c.value, c.options])).toEqual([
      ['r1c1', '', undefined],
      ['r1c2', undefined, ['Goa', 'Kerala']],
      ['r1c3', undefined, ['Goa', 'Kerala']],
    ]);
  });
});

/** A three-page synthetic portal: details → declaration → confirmation. */
class SyntheticPortal {
  page: 'details' | 'declaration' | 'confirmation' = 'details';
  values: Record<string, string | boolean> = {};
  private reads = 0;
  private refs = new Map<string, string>();

  read(): Observation {
    this.reads += 1;
    const id = `p${this.reads}`;
    this.refs.clear();
    const c = (key: string, rest: Parameters<typeof control>[0] extends infer P ? Omit<P, 'ref'> : never) => {
      const ref = `${id}c${this.refs.size + 1}`;
      this.refs.set(ref, key);
      return control({ ref, ...rest });
    };
    if (this.page === 'details') {
      return observation({
        readId: id,
        title: 'Business details',
        flowStep: 'Step 1 of 2',
        controls: [
          c('business_name', { role: 'textbox', name: 'Trading name', required: true, ...(this.values['business_name'] ? { value: String(this.values['business_name']) } : {}) }),
          c('owner_name', { role: 'textbox', name: 'Owner name', required: true, ...(this.values['owner_name'] ? { value: String(this.values['owner_name']) } : {}) }),
          c('district', { role: 'combobox', name: 'District', options: ['North', 'South'], selected: String(this.values['district'] ?? 'North') }),
          c('continue', { role: 'button', name: 'Continue' }),
        ],
      });
    }
    if (this.page === 'declaration') {
      return observation({
        readId: id,
        title: 'Declaration',
        flowStep: 'Step 2 of 2',
        controls: [
          c('declaration', { role: 'checkbox', name: 'I confirm the information is correct', checked: this.values['declaration'] === true, required: true }),
          c('submit', { role: 'button', name: 'Submit application', gated: true }),
        ],
      });
    }
    return observation({ readId: id, title: 'Application received', headings: ['Application received'], text: 'Your application number is SHP-2026-00417.', controls: [] });
  }

  run(action: Action): StepAction['outcome']['status'] {
    const key = 'ref' in action ? this.refs.get(action.ref) : undefined;
    if ('ref' in action && !key) return 'unknown_ref';
    if (action.type === 'fill' || action.type === 'select') this.values[key as string] = CASE.fields[action.field] ?? '';
    if (action.type === 'check') this.values[key as string] = action.checked;
    if (action.type === 'click' && key === 'continue' && this.values['business_name'] && this.values['owner_name']) this.page = 'declaration';
    if (action.type === 'click' && key === 'submit' && this.values['declaration'] === true) this.page = 'confirmation';
    return 'done';
  }
}

describe('formFillingModel', () => {
  it('fills and submits a synthetic form through the real planner', async () => {
    const decisions: string[] = [];
    api = await startMessagesApi(formFillingModel(CASE.fields, { aliases: CASE.aliases, declarations: CASE.declarations, thinking: true, onDecision: (d) => decisions.push(d.input.reasoning) }), { apiKey: TEST_KEY });
    const planner = plannerFor(api);
    planner.start(CASE);
    const portal = new SyntheticPortal();
    let previous: StepAction[] = [];
    let finished: Action | undefined;
    for (let step = 0; step < 10 && !finished; step += 1) {
      const { turn } = await planner.decide(input(step, portal.read(), previous));
      previous = turn.actions.map((action) => ({ action, verdict: { verdict: 'allow', rule: 'guard', reason: 'test' }, outcome: { status: portal.run(action), ms: 1 } }));
      finished = turn.actions.find((action) => action.type === 'done' || action.type === 'fail');
    }
    expect(finished).toEqual({ type: 'done', proof: 'Application number SHP-2026-00417 shown on the confirmation page' });
    expect(portal.values).toEqual({ business_name: 'Kestrel Hardware Ltd', owner_name: 'Amaka Obi', district: 'South', declaration: true });
    expect(decisions).toHaveLength(5);
    expect(api.requests).toHaveLength(5);
  });
});

describe('the loopback refuses strict JSON schemas outside the structured-outputs subset', () => {
  const base = { model: 'claude-sonnet-5-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  const tool = (input_schema: unknown) => ({ ...base, tools: [{ name: 'act_on_page', strict: true, input_schema }] });
  const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

  it.each([
    ['an open object', tool({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }), "tools.0.custom.input_schema: For 'object' type, 'additionalProperties' must be explicitly set to false"],
    ['a nested open object', tool(closed({ a: { type: 'object', properties: {} } })), "tools.0.custom.input_schema.properties.a: For 'object' type, 'additionalProperties' must be explicitly set to false"],
    ['maxLength', tool(closed({ a: { type: 'string', maxLength: 5 } })), "tools.0.custom.input_schema.properties.a: The 'maxLength' keyword is not supported in strict JSON schemas (structured outputs)"],
    ['minimum', tool(closed({ a: { type: 'integer', minimum: 0 } })), "tools.0.custom.input_schema.properties.a: The 'minimum' keyword is not supported in strict JSON schemas (structured outputs)"],
    ['minItems 2', tool(closed({ a: { type: 'array', items: { type: 'string' }, minItems: 2 } })), "tools.0.custom.input_schema.properties.a: For 'array' type, 'minItems' values other than 0 or 1 are not supported"],
    ['an unsupported format', tool(closed({ a: { type: 'string', format: 'iban' } })), "tools.0.custom.input_schema.properties.a: String format 'iban' is not supported"],
    ['oneOf', tool(closed({ a: { oneOf: [{ type: 'string' }, { type: 'null' }] } })), "tools.0.custom.input_schema.properties.a: The 'oneOf' keyword is not supported in strict JSON schemas (structured outputs)"],
    [
      'a recursive output format',
      { ...base, output_config: { format: { type: 'json_schema', schema: { ...closed({ node: { $ref: '#/$defs/node' } }), $defs: { node: closed({ kids: { type: 'array', items: { $ref: '#/$defs/node' } } }) } } } } },
      'output_config.format.schema: Recursive schemas are not supported in strict JSON schemas (structured outputs)',
    ],
  ])('refuses %s with a 400 invalid_request_error', async (_what, body, message) => {
    api = await startMessagesApi([reply.text('unused')]);
    const response = await post(api.url, body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ type: 'error', error: { type: 'invalid_request_error', message }, request_id: expect.any(String) });
    expect(api.remaining()).toBe(1);
  });

  it('accepts a schema inside the subset, and a non-strict tool whatever its schema', async () => {
    api = await startMessagesApi([reply.text('ok'), reply.text('ok')]);
    const good = closed({ a: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] }, b: { type: 'array', items: { type: 'integer' }, minItems: 1 } });
    expect((await post(api.url, tool(good))).status).toBe(200);
    expect((await post(api.url, { ...base, tools: [{ name: 't', input_schema: { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } } }] })).status).toBe(200);
  });
});

describe('the loopback refuses sampling parameters the API refuses', () => {
  const hi = [{ role: 'user', content: 'hi' }];
  it.each([
    ['max_tokens over the model maximum', { model: 'claude-3-5-haiku-20241022', max_tokens: 16_384, messages: hi }, 'max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022'],
    ['temperature with top_p', { model: 'claude-sonnet-4-5', max_tokens: 10, temperature: 0.2, top_p: 0.9, messages: hi }, '`temperature` and `top_p` cannot both be specified for this model. Please use only one.'],
    ['a thinking budget of max_tokens', { model: 'claude-sonnet-4-5', max_tokens: 2_048, thinking: { type: 'enabled', budget_tokens: 2_048 }, messages: hi }, /^`max_tokens` must be greater than `thinking.budget_tokens`/],
    ['a thinking budget under 1024', { model: 'claude-sonnet-4-5', max_tokens: 4_096, thinking: { type: 'enabled', budget_tokens: 512 }, messages: hi }, 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024'],
    ['temperature 0 with thinking', { model: 'claude-sonnet-4-5', max_tokens: 4_096, temperature: 0, thinking: { type: 'enabled', budget_tokens: 1_024 }, messages: hi }, /^`temperature` may only be set to 1 when thinking is enabled/],
  ])('refuses %s with a 400 invalid_request_error', async (_what, body, message) => {
    api = await startMessagesApi([reply.text('unused')]);
    const response = await post(api.url, body);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((response.json['error'] as { message: string }).message).toMatch(typeof message === 'string' ? new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : message);
  });

  it('accepts max_tokens at the maximum, one sampling knob, and an unknown model id', async () => {
    api = await startMessagesApi([reply.text('ok'), reply.text('ok'), reply.text('ok')]);
    expect((await post(api.url, { model: 'claude-haiku-4-5-20251001', max_tokens: 64_000, messages: hi })).status).toBe(200);
    expect((await post(api.url, { model: 'claude-sonnet-4-5', max_tokens: 10, temperature: 0.2, messages: hi })).status).toBe(200);
    expect((await post(api.url, { model: 'claude-sonnet-5-5', max_tokens: 128_000, messages: hi })).status).toBe(200);
  });
});

describe('the loopback keeps the cache TTL rules', () => {
  const request = (first: Record<string, unknown>, second: Record<string, unknown>) => ({
    model: 'claude-sonnet-5-5',
    max_tokens: 10,
    system: [{ type: 'text', text: 'You fill forms.', cache_control: first }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: second }] }],
  });

  it('refuses a 1h breakpoint after a 5m one, and a TTL other than 5m or 1h, with a 400', async () => {
    api = await startMessagesApi([reply.text('ok'), reply.text('ok')]);
    const late = await post(api.url, request({ type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' }));
    expect(late.status).toBe(400);
    expect(late.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/ttl='1h' must not come after one with ttl='5m'/) } });
    const odd = await post(api.url, request({ type: 'ephemeral', ttl: '24h' }, { type: 'ephemeral' }));
    expect(odd.status).toBe(400);
    expect(odd.json).toMatchObject({ error: { type: 'invalid_request_error', message: "cache_control.ttl: Input should be '5m' or '1h'" } });
    expect((await post(api.url, request({ type: 'ephemeral', ttl: '1h' }, { type: 'ephemeral' }))).status).toBe(200);
    expect((await post(api.url, request({ type: 'ephemeral' }, { type: 'ephemeral' }))).status).toBe(200);
  });
});

describe('the loopback keeps the per-image size limit', () => {
  it('refuses an image over 5 MB of base64 data with a 400, as the API words it', async () => {
    api = await startMessagesApi([reply.text('unused')]);
    const data = Buffer.from(pngOf(2_000, 3_000, true)).toString('base64');
    const response = await post(api.url, {
      model: 'claude-sonnet-5-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }, { type: 'text', text: 'read it' }] }],
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'invalid_request_error', message: `messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > 5242880 bytes` } });
  });
});
