/**
 * Scripted replies for the loopback Messages API. A reply is what one request gets: a status,
 * headers and a JSON body. Message bodies may be partial: the server fills in `id`, `model`,
 * `type`, `role`, `stop_sequence`, `stop_details` and `usage` (see server.ts).
 */

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
  /** Send only this fraction (0–1) of the JSON body: a response cut off in transit. */
  truncateAt?: number;
}

export interface UsageFields {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface MessageOptions {
  /** A thinking block before the content (with a signature), as thinking models send. */
  thinking?: string;
  /** A text block before the tool call. */
  text?: string;
  /** Usage numbers; the rest are simulated from the request. */
  usage?: UsageFields;
  stopReason?: string;
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}_loop${String(++counter).padStart(6, '0')}`;

function thinkingBlock(thinking: string): Record<string, unknown> {
  return { type: 'thinking', thinking, signature: `sig_${Buffer.from(thinking).toString('base64').slice(0, 24)}_${counter}` };
}

function message(content: Record<string, unknown>[], stopReason: string, options: MessageOptions = {}): Reply {
  const blocks = [...(options.thinking ? [thinkingBlock(options.thinking)] : []), ...(options.text ? [{ type: 'text', text: options.text, citations: null }] : []), ...content];
  const body: Record<string, unknown> = { content: blocks, stop_reason: options.stopReason ?? stopReason };
  if (options.usage) body['usage'] = options.usage;
  return { status: 200, body };
}

export interface ErrorOptions {
  /** `error.type`; default from the status (rate_limit_error, overloaded_error…). */
  type?: string;
  /** retry-after-ms header (the SDK prefers it); with it, retry-after is its value in whole seconds. */
  retryAfterMs?: number;
  /** retry-after header in seconds (when retryAfterMs is not given). */
  retryAfterSeconds?: number;
  /** x-should-retry header: the SDK obeys it over its own rules. */
  shouldRetry?: boolean;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export const reply = {
  /** A tool call (default tool `act_on_page`), stop_reason `tool_use`. */
  toolUse(input: unknown, options: MessageOptions & { name?: string; id?: string } = {}): Reply {
    return message([{ type: 'tool_use', id: options.id ?? nextId('toolu'), name: options.name ?? 'act_on_page', input, caller: { type: 'direct' } }], 'tool_use', options);
  },
  /** Several tool calls in one reply. */
  toolUses(calls: { name?: string; input: unknown; id?: string }[], options: MessageOptions = {}): Reply {
    return message(
      calls.map((call) => ({ type: 'tool_use', id: call.id ?? nextId('toolu'), name: call.name ?? 'act_on_page', input: call.input, caller: { type: 'direct' } })),
      'tool_use',
      options,
    );
  },
  /** A plain text answer, stop_reason `end_turn`. */
  text(text: string, options: MessageOptions = {}): Reply {
    return message([{ type: 'text', text, citations: null }], 'end_turn', options);
  },
  /** A reply with no content at all, `stop_reason: end_turn` (what a model sometimes sends after a tool result). */
  empty(options: MessageOptions = {}): Reply {
    return message([], 'end_turn', options);
  },
  /** A structured output (output_config.format): the JSON as the text block. */
  json(value: unknown, options: MessageOptions = {}): Reply {
    return message([{ type: 'text', text: JSON.stringify(value), citations: null }], 'end_turn', options);
  },
  /** A reply cut off at max_tokens (a partial tool call). */
  maxTokens(options: MessageOptions = {}): Reply {
    return message([{ type: 'tool_use', id: nextId('toolu'), name: 'act_on_page', input: {}, caller: { type: 'direct' } }], 'max_tokens', options);
  },
  /** A turn the API paused (`stop_reason: pause_turn`): send it back as the last message to let it continue. */
  pauseTurn(options: MessageOptions = {}): Reply {
    return message([], 'pause_turn', options);
  },
  /** A 200 whose JSON body is cut off part-way (default: half of it), as a dropped connection leaves it. */
  truncated(inner: Reply, fraction = 0.5): Reply {
    return { ...inner, truncateAt: fraction };
  },
  /** A refusal with stop_details. */
  refusal(details: { category?: string | null; explanation?: string | null } = {}, options: MessageOptions = {}): Reply {
    const r = message([], 'refusal', options);
    r.body['stop_details'] = { type: 'refusal', category: details.category ?? null, explanation: details.explanation ?? null };
    return r;
  },
  /** An API error body `{type:'error', error:{type, message}}` with the status and retry headers. */
  error(status: number, errorMessage = `loopback ${status}`, options: ErrorOptions = {}): Reply {
    const headers: Record<string, string> = {};
    if (options.retryAfterMs !== undefined) {
      headers['retry-after-ms'] = String(options.retryAfterMs);
      headers['retry-after'] = String(Math.ceil(options.retryAfterMs / 1000));
    } else if (options.retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(options.retryAfterSeconds);
    }
    if (options.shouldRetry !== undefined) headers['x-should-retry'] = String(options.shouldRetry);
    return {
      status,
      headers,
      body: { type: 'error', error: { type: options.type ?? ERROR_TYPES[status] ?? 'api_error', message: errorMessage }, request_id: nextId('req') },
    };
  },
  /** 429 with a short retry-after (5 ms by default, so tests stay fast). */
  rateLimited(retryAfterMs = 5): Reply {
    return reply.error(429, 'Number of request tokens has exceeded your per-minute rate limit', { retryAfterMs });
  },
  /** 529 overloaded with a short retry-after. */
  overloaded(retryAfterMs = 5): Reply {
    return reply.error(529, 'Overloaded', { retryAfterMs });
  },
  /** 401 invalid x-api-key. */
  unauthorized(): Reply {
    return reply.error(401, 'invalid x-api-key');
  },
};
