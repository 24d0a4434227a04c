import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { paramProblem } from './param-rules';
import { strictSchemaProblem } from './schema-rules';
import { contentProblem, MAX_REQUEST_BYTES } from './content-rules';
import { type Reply, reply } from './replies';

/**
 * A loopback Messages API: a real HTTP server on 127.0.0.1 that speaks the wire format of
 * `POST /v1/messages`, answers from a script, and records every request. Point the real SDK
 * at it with `baseURL: api.url` (or ANTHROPIC_BASE_URL).
 *
 * With `validate` (default on) it also rejects, with the API's 400 shape, what the real API
 * would reject in a planner conversation: a tool_use without exactly one tool_result right
 * after it, a tool_result for an unknown tool_use, more than 4 cache_control breakpoints, and
 * an assistant turn that does not echo what this server sent (thinking blocks may only be
 * dropped all together, never altered), and a thinking block sent back after `system`,
 * `tools` or an earlier message changed (the prefix check of models with preserved thinking);
 * and what the API requires of content (content-rules.ts: no empty message or text block,
 * images of a known type within the documented size and count limits, a body of at most 32 MB).
 */

/** A request body as sent (JSON). */
export type RequestBody = Record<string, unknown> & {
  model?: string;
  max_tokens?: number;
  system?: unknown;
  tools?: Record<string, unknown>[];
  tool_choice?: Record<string, unknown>;
  messages?: WireMessage[];
};

export interface WireMessage {
  role: string;
  content: string | WireBlock[];
}
export type WireBlock = Record<string, unknown> & { type: string };

export interface RecordedRequest {
  /** 0-based order of arrival. */
  index: number;
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: RequestBody;
  /** The body exactly as received. */
  raw: string;
}

export type ScriptFn = (request: RecordedRequest) => Reply | Promise<Reply>;
/** A queue (each request takes the next entry; a function entry is called for that request) or one function for all. */
export type Script = (Reply | ScriptFn)[] | ScriptFn;

export interface MessagesApiOptions {
  /** Reject requests the real API would reject (default true). */
  validate?: boolean;
  /** Answer 401 unless the request carries this key (as `Authorization: Bearer` or `x-api-key`). */
  apiKey?: string;
  /** Answer a forced tool_choice (`tool` / `any`) with a 400, like models with always-on thinking. */
  rejectForcedToolChoice?: boolean;
  /**
   * The minimum cacheable prefix (tokens) per model, as the API applies it: a breakpoint on a
   * shorter prefix caches nothing. Default {@link documentedCacheMinimum}.
   */
  cacheMinimum?: (model: string) => number;
}

/**
 * The minimum cacheable prompt length from Anthropic's documentation: 1,024 tokens for Sonnet
 * 4.5/4.6, 4,096 for Opus 4.5/4.6 and Haiku 4.5; other ids here get 1,024 (older models' value).
 */
export function documentedCacheMinimum(model: string): number {
  const id = model.toLowerCase().split('/').pop() ?? model;
  if (/^claude-(opus-4-[56]|haiku-4-5)(-|$)/.test(id)) return 4_096;
  return 1_024;
}

export interface MessagesApi {
  /** Base URL for the SDK (`http://127.0.0.1:<port>`). */
  url: string;
  /** Every request received, in order (also those answered with an error). */
  requests: RecordedRequest[];
  /** Queue entries not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}

function apiError(status: number, message: string): Reply {
  return reply.error(status, message);
}

function blocksOf(message: WireMessage | undefined): WireBlock[] {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheControl(item), 0);
  if (!value || typeof value !== 'object') return 0;
  const object = value as Record<string, unknown>;
  let count = object['cache_control'] ? 1 : 0;
  for (const [key, item] of Object.entries(object)) {
    if (key !== 'cache_control' && typeof item === 'object') count += countCacheControl(item);
  }
  return count;
}

/**
 * The cache TTL rules ("Prompt caching", 1-hour cache duration): `ttl` is "5m" (the default) or
 * "1h", and a longer TTL must come before a shorter one in the cache order (tools, system,
 * messages; a top-level cache_control marks the last block).
 */
function ttlProblem(body: RequestBody): string | null {
  const system = Array.isArray(body.system) ? (body.system as Record<string, unknown>[]) : [];
  const marked: unknown[] = [...(body.tools ?? []), ...system, ...(body.messages ?? []).flatMap((message) => blocksOf(message))].map((block) => (block as Record<string, unknown>)['cache_control']);
  marked.push(body['cache_control']);
  let sawShort = false;
  for (const control of marked) {
    if (!control || typeof control !== 'object') continue;
    const ttl = (control as { ttl?: unknown }).ttl ?? '5m';
    if (ttl !== '5m' && ttl !== '1h') return `cache_control.ttl: Input should be '5m' or '1h'`;
    if (ttl === '1h' && sawShort) return "a cache_control block with ttl='1h' must not come after one with ttl='5m': longer TTLs must appear before shorter ones";
    if (ttl === '5m') sawShort = true;
  }
  return null;
}

const withoutThinking = (blocks: WireBlock[]): WireBlock[] => blocks.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
/** A response's blocks as they may come back: without the empty text blocks the API would refuse in a request. */
const sendable = (blocks: WireBlock[]): WireBlock[] => blocks.filter((block) => !(block.type === 'text' && String(block['text'] ?? '').trim() === ''));
const stable = (value: unknown): string => JSON.stringify(value);

/** What a response was produced after: the request's system, tools and messages. */
function prefixOf(body: RequestBody, messages: WireMessage[]): string {
  return stable({ system: body.system ?? null, tools: body.tools ?? null, messages });
}

interface Issued {
  content: WireBlock[];
  /** {@link prefixOf} the request that produced it. */
  prefix: string;
}

const isThinking = (block: WireBlock | undefined): boolean => block?.type === 'thinking' || block?.type === 'redacted_thinking';

/** What the server keeps of the responses it sent, to check what comes back. */
interface IssuedLog {
  /** By tool_use id: the whole assistant turn it came in (a paused turn's start included). */
  byToolUse: Map<string, Issued>;
  /** Responses that stopped with `pause_turn`, by their content: the request that continues one ends with it. */
  paused: Map<string, Issued>;
}

/** Problems the real API would answer with a 400; null when the request is fine. */
function validate(body: RequestBody, log: IssuedLog, options: MessagesApiOptions): string | null {
  const issued = log.byToolUse;
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number') return 'model and max_tokens are required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  if (messages[0]?.role !== 'user') return 'messages.0: the first message must use the "user" role';
  const breakpoints = countCacheControl(body);
  if (breakpoints > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  const ttl = ttlProblem(body);
  if (ttl) return ttl;
  const content = contentProblem(body);
  if (content) return content;
  const schema = strictSchemaProblem(body);
  if (schema) return schema;
  const params = paramProblem(body);
  if (params) return params;
  const forced = body.tool_choice?.['type'] === 'tool' || body.tool_choice?.['type'] === 'any';
  const thinking = (body['thinking'] as { type?: unknown } | undefined)?.type;
  // Extended thinking takes tool_choice auto or none only (the extended-thinking page, "Tool choice limitation").
  if (forced && (thinking === 'enabled' || thinking === 'adaptive')) return 'Thinking may not be enabled when tool_choice forces tool use.';
  if (options.rejectForcedToolChoice && (body.tool_choice?.['type'] === 'tool' || body.tool_choice?.['type'] === 'any')) {
    return 'tool_choice: forced tool use is not supported with this model (thinking is always on); use {"type": "auto"}';
  }
  const last = messages.length - 1;
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i] as WireMessage;
    const next = messages[i + 1];
    if (i === last && message.role === 'assistant') {
      // A request ending with an assistant turn continues a paused one: it must be that response, unchanged.
      const paused = log.paused.get(stable(blocksOf(message)));
      if (!paused) return `messages.${i}: a final assistant message is only accepted to continue a response that stopped with \`pause_turn\`, sent back unchanged`;
      if (prefixOf(body, messages.slice(0, i)) !== paused.prefix) return `messages.${i}: the paused turn must be continued with the same system, tools and earlier messages`;
      continue;
    }
    const toolUseIds = blocksOf(message)
      .filter((block) => block.type === 'tool_use')
      .map((block) => String(block['id']));
    if (message.role === 'assistant') {
      const origin = toolUseIds.map((id) => issued.get(id)).find(Boolean);
      if (origin) {
        // Empty text blocks cannot be sent back (see content-rules.ts): they are the one thing an echo leaves out.
        const issuedContent = sendable(origin.content);
        const sent = blocksOf(message);
        const same = stable(sent) === stable(issuedContent) || (stable(withoutThinking(sent)) === stable(withoutThinking(issuedContent)) && sent.every((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking'));
        if (!same) return `messages.${i}: the assistant turn does not match the response it came from (blocks must be sent back unchanged; thinking blocks may only be removed all together)`;
        const thinkingAt = sent.findIndex(isThinking);
        if (thinkingAt >= 0 && prefixOf(body, messages.slice(0, i)) !== origin.prefix) {
          return `messages.${i}.content.${thinkingAt}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`;
        }
      }
      if (origin && i === last - 1 && isThinking(origin.content[0]) && !isThinking(blocksOf(message)[0])) {
        // Thinking was on for this turn (its response began with a thinking block), and the
        // request continues the turn by answering its tool_use: the block must come back.
        const found = blocksOf(message)[0]?.type ?? 'nothing';
        return (
          `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message ` +
          'must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. ' +
          'To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking'
        );
      }
      if (toolUseIds.length > 0) {
        if (!next || next.role !== 'user') return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${toolUseIds.join(', ')}`;
        const results = blocksOf(next).filter((block) => block.type === 'tool_result');
        const answered = results.map((block) => String(block['tool_use_id']));
        const missing = toolUseIds.filter((id) => !answered.includes(id));
        if (missing.length > 0) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
        const twice = answered.filter((id, k) => answered.indexOf(id) !== k);
        if (twice.length > 0) return `messages.${i + 1}: each \`tool_use\` must have a single result. Found multiple \`tool_result\` blocks with id: ${twice.join(', ')}`;
        const firstOther = blocksOf(next).findIndex((block) => block.type !== 'tool_result');
        const lastResult = blocksOf(next).map((block) => block.type).lastIndexOf('tool_result');
        if (firstOther >= 0 && firstOther < lastResult) return `messages.${i + 1}: \`tool_result\` blocks must come first in the user message`;
      }
    }
    if (message.role === 'user') {
      const previousIds = new Set(
        blocksOf(messages[i - 1])
          .filter((block) => block.type === 'tool_use')
          .map((block) => String(block['id'])),
      );
      for (const block of blocksOf(message)) {
        if (block.type === 'tool_result' && !previousIds.has(String(block['tool_use_id']))) {
          return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  return null;
}

const tokens = (value: unknown): number => Math.ceil((JSON.stringify(value ?? '') ?? '').length / 4);

/** Input tokens of a base64 PNG as the API counts an image: width × height / 750, after fitting a 1568-pixel long edge. */
function imageTokens(data: string): number {
  const head = Buffer.from(data.slice(0, 64), 'base64');
  const png = head.length >= 24 && head.readUInt32BE(12) === 0x49484452;
  let width = png ? head.readUInt32BE(16) : 1280;
  let height = png ? head.readUInt32BE(20) : 800;
  const scale = Math.min(1, 1568 / Math.max(width, height, 1));
  width = Math.round(width * scale);
  height = Math.round(height * scale);
  return Math.max(1, Math.ceil((width * height) / 750));
}

/** Tokens of a block: characters / 4 of its JSON, with each image counted as the API counts it (not by its base64). */
function blockTokens(value: unknown): number {
  let images = 0;
  const text = JSON.stringify(value ?? '', (key, item: unknown) => {
    if (key === 'source' && item && typeof item === 'object' && (item as { type?: unknown }).type === 'base64') {
      images += imageTokens(String((item as { data?: unknown }).data ?? ''));
      return null;
    }
    return item;
  });
  return Math.ceil((text ?? '').length / 4) + images;
}

/** A block as the cache sees it: its content, without the breakpoint marker. */
const withoutMarker = (block: unknown): unknown => {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return block;
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return rest;
};

/** The request as the cache reads it: tools, then system, then every message's blocks, in order. */
function segmentsOf(body: RequestBody): { block: unknown; tokens: number; breakpoint: boolean }[] {
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body.system) ? (body.system as unknown[]) : [];
  const blocks: unknown[] = [...(body.tools ?? []), ...system];
  for (const message of body.messages ?? []) for (const block of blocksOf(message)) blocks.push({ role: message.role, ...block });
  const segments = blocks.map((block) => {
    const content = withoutMarker(block);
    return { block: content, tokens: blockTokens(content), breakpoint: !!(block && typeof block === 'object' && (block as Record<string, unknown>)['cache_control']) };
  });
  // The top-level cache_control places the breakpoint on the last block.
  if (body['cache_control'] && segments.length > 0) segments[segments.length - 1]!.breakpoint = true;
  return segments;
}

/** The prefix length (tokens, as this server counts them) at each cache breakpoint of a request, in order. */
export function breakpointPrefixes(body: RequestBody): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const segment of segmentsOf(body)) {
    sum += segment.tokens;
    if (segment.breakpoint) out.push(sum);
  }
  return out;
}

/** How far back from a breakpoint the API looks for an earlier cache entry (blocks). */
const LOOKBACK_BLOCKS = 20;

/**
 * Usage numbers as the API reports them: each breakpoint whose prefix (tools, system, messages up
 * to it) reaches the model's minimum is written to the cache; a later request reads the longest
 * prefix it shares with an entry, looking up to 20 blocks back from each breakpoint. A breakpoint
 * on a shorter prefix caches nothing. Tokens are characters / 4 of each block's JSON, an image as the API counts it (width × height / 750).
 */
function simulatedUsage(body: RequestBody, content: unknown, cache: Map<string, number>, minimum: number): Record<string, number> {
  const segments = segmentsOf(body);
  const model = String(body.model ?? '');
  const keys: string[] = [];
  const ends: number[] = [];
  const hash = createHash('sha256').update(model);
  let sum = 0;
  for (const segment of segments) {
    hash.update(stable(segment.block));
    keys.push(hash.copy().digest('hex'));
    sum += segment.tokens;
    ends.push(sum);
  }
  const total = sum;
  let read = 0;
  let write = 0;
  for (const [i, segment] of segments.entries()) {
    if (!segment.breakpoint) continue;
    for (let j = i; j >= Math.max(0, i - LOOKBACK_BLOCKS); j -= 1) {
      const hit = cache.get(keys[j]!);
      if (hit !== undefined) {
        read = Math.max(read, hit);
        break;
      }
    }
    if (ends[i]! >= minimum) write = Math.max(write, ends[i]!);
  }
  for (const [i, segment] of segments.entries()) if (segment.breakpoint && ends[i]! >= minimum) cache.set(keys[i]!, ends[i]!);
  const creation = Math.max(write - read, 0);
  return {
    input_tokens: Math.max(total - read - creation, 1),
    output_tokens: Math.max(tokens(content), 1),
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: read,
  };
}

function completeMessage(body: Record<string, unknown>, request: RequestBody, cache: Map<string, number>, minimum: number, requestId: string): Record<string, unknown> {
  const content = (body['content'] as unknown[]) ?? [];
  const usage = { ...simulatedUsage(request, content, cache, minimum), ...((body['usage'] as Record<string, number> | undefined) ?? {}) };
  return {
    id: `msg_${requestId}`,
    type: 'message',
    role: 'assistant',
    model: request.model ?? 'claude-loopback',
    content,
    stop_reason: body['stop_reason'] ?? 'end_turn',
    stop_sequence: null,
    stop_details: body['stop_details'] ?? null,
    container: null,
    diagnostics: null,
    ...body,
    usage: {
      cache_creation: { ephemeral_5m_input_tokens: usage['cache_creation_input_tokens'] ?? 0, ephemeral_1h_input_tokens: 0 },
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
      ...usage,
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: Reply, requestId: string): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': requestId, ...(answer.headers ?? {}) });
  // A truncated reply is the body cut short, as a dropped connection or a broken proxy leaves it.
  res.end(answer.truncateAt === undefined ? text : text.slice(0, Math.max(1, Math.min(text.length - 1, Math.floor(text.length * answer.truncateAt)))));
}

/** Starts the loopback Messages API on 127.0.0.1 (a free port). */
export async function startMessagesApi(script: Script, options: MessagesApiOptions = {}): Promise<MessagesApi> {
  const requests: RecordedRequest[] = [];
  const queue = Array.isArray(script) ? [...script] : null;
  const issued: IssuedLog = { byToolUse: new Map(), paused: new Map() };
  const cache = new Map<string, number>();
  const cacheMinimum = options.cacheMinimum ?? documentedCacheMinimum;
  const shouldValidate = options.validate ?? true;

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const index = requests.length;
      const requestId = `req_loop${String(index).padStart(4, '0')}`;
      let body: RequestBody = {};
      try {
        body = raw ? (JSON.parse(raw) as RequestBody) : {};
      } catch {
        requests.push({ index, method: req.method ?? '', path: req.url ?? '', headers: lowerHeaders(req), body, raw });
        send(res, apiError(400, 'There was an issue with the format of the request body (not JSON)'), requestId);
        return;
      }
      const recorded: RecordedRequest = { index, method: req.method ?? '', path: req.url ?? '', headers: lowerHeaders(req), body, raw };
      requests.push(recorded);
      if (shouldValidate && Buffer.byteLength(raw) > MAX_REQUEST_BYTES) {
        send(res, reply.error(413, `Request exceeds the maximum allowed number of bytes (${MAX_REQUEST_BYTES})`), requestId);
        return;
      }
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/messages') {
        send(res, apiError(404, `Not found: ${req.method ?? ''} ${req.url ?? ''}`), requestId);
        return;
      }
      if (options.apiKey !== undefined) {
        const headers = recorded.headers;
        if (headers['authorization'] !== `Bearer ${options.apiKey}` && headers['x-api-key'] !== options.apiKey) {
          send(res, reply.unauthorized(), requestId);
          return;
        }
      }
      if (shouldValidate) {
        const problem = validate(body, issued, options);
        if (problem) {
          send(res, apiError(400, problem), requestId);
          return;
        }
      }
      let answer: Reply;
      if (queue) {
        const entry = queue.shift();
        if (!entry) {
          send(res, reply.error(500, `loopback Messages API: script exhausted after ${index} requests`, { shouldRetry: false }), requestId);
          return;
        }
        answer = typeof entry === 'function' ? await entry(recorded) : entry;
      } else {
        answer = await (script as ScriptFn)(recorded);
      }
      if (answer.status === 200 && answer.body['type'] !== 'error') {
        const message = completeMessage(answer.body, body, cache, cacheMinimum(String(body.model ?? '')), requestId);
        const content = message['content'] as WireBlock[];
        const messages = body.messages ?? [];
        const trailing = messages[messages.length - 1];
        // A continuation of a paused turn: the turn is the paused start plus this response, bound to the start's prefix.
        const start = trailing?.role === 'assistant' ? issued.paused.get(stable(blocksOf(trailing))) : undefined;
        const turn = start ? [...blocksOf(trailing), ...content] : content;
        const prefix = start ? start.prefix : prefixOf(body, messages);
        if (message['stop_reason'] === 'pause_turn') issued.paused.set(stable(turn), { content: turn, prefix });
        for (const block of turn) if (block.type === 'tool_use') issued.byToolUse.set(String(block['id']), { content: turn, prefix });
        send(res, { ...answer, body: message }, requestId);
        return;
      }
      send(res, answer, requestId);
    })().catch((error: unknown) => {
      send(res, reply.error(500, `loopback Messages API failed: ${String(error)}`, { shouldRetry: false }), 'req_loop_error');
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    remaining: () => queue?.length ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([key, value]) => [key.toLowerCase(), Array.isArray(value) ? value.join(', ') : (value ?? '')]));
}
