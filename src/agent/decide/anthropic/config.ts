import { z } from 'zod';
import { PriceTable } from './prices';
import { PortalDeskError } from '../../../base/portal-desk-error';

/** The current Sonnet (Claude Sonnet 5.5): the default for form filling. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/**
 * How the model is made to call `act_on_page`:
 * - `tool`: forced (`tool_choice: {type: "tool"}`),
 * - `any`: must call some tool (there is one),
 * - `auto`: the model may answer in text; a reply without the tool call goes back as an error.
 * Models with always-on thinking (Claude Opus 5.5, Sonnet 5.5, Fable 5.1 and later) answer a
 * forced choice with a 400, so they default to `auto`.
 */
export const ToolChoiceMode = z.enum(['tool', 'any', 'auto']);
export type ToolChoiceMode = z.infer<typeof ToolChoiceMode>;

const Effort = z.enum(['low', 'medium', 'high', 'xhigh', 'max']);

export const AnthropicConfig = z.strictObject({
  /** ANTHROPIC_API_KEY. Never logged, never in an error message. */
  apiKey: z.string().min(1, 'ANTHROPIC_API_KEY is empty'),
  /** ANTHROPIC_BASE_URL: a LiteLLM or other gateway speaking the Messages API. */
  baseURL: z.url().optional(),
  /** ANTHROPIC_MODEL or option; a Claude API model id. */
  model: z.string().min(1).default(DEFAULT_MODEL),
  /** ANTHROPIC_FALLBACK_MODEL: the model a refused request goes to (once); the run then stays on it. */
  fallbackModel: z.string().min(1).optional(),
  /** max_tokens of a planner call (thinking counts against it). */
  maxTokens: z.int().min(256).max(128_000).default(8_192),
  /** After a `max_tokens` stop the call is retried once with twice the tokens, up to this. */
  maxTokensCeiling: z.int().min(256).max(128_000).default(32_000),
  /** Estimated input tokens per call (chars / 4) before older pages shrink to one-line summaries. */
  tokenBudget: z.int().min(2_000).default(50_000),
  /** Planner turns per run. */
  maxTurns: z.int().min(1).default(60),
  /** Tool inputs that fail validation (or replies without the tool call) per run before `invalid_output`. */
  maxInvalidOutputs: z.int().min(1).default(3),
  /** SDK retries (with backoff, honouring retry-after) for 408, 409, 429, 5xx and 529. */
  maxRetries: z.int().min(0).max(10).default(4),
  /** Per-request timeout in milliseconds; a request is given at least the time its max_tokens may take (client.ts, requestTimeoutMs). */
  timeoutMs: z.int().min(1_000).default(120_000),
  /** Default: by model (see {@link defaultToolChoice}). */
  toolChoice: ToolChoiceMode.optional(),
  /** output_config.effort; unset leaves the model's default. */
  effort: Effort.optional(),
  /** Send screenshots when the policy asks for one (false: never). */
  screenshots: z.boolean().default(true),
  /** Top-level cache_control so the growing conversation is cached too (a 4th breakpoint). */
  cacheConversation: z.boolean().default(true),
  /** Price overrides / additions, USD per million tokens. */
  prices: PriceTable.default({}),
});
export type AnthropicConfig = z.infer<typeof AnthropicConfig>;
export type AnthropicOptions = Partial<z.input<typeof AnthropicConfig>>;

/** A configuration that cannot be used. Thrown before any request is made. */
export class AnthropicConfigError extends PortalDeskError {
  constructor(message: string) {
    super(message);
  }
}

type Env = Record<string, string | undefined>;

function fromEnv(env: Env): AnthropicOptions {
  const options: AnthropicOptions = {};
  const key = env['ANTHROPIC_API_KEY']?.trim();
  if (key) options.apiKey = key;
  const baseURL = env['ANTHROPIC_BASE_URL']?.trim();
  if (baseURL) options.baseURL = baseURL;
  const model = env['ANTHROPIC_MODEL']?.trim();
  if (model) options.model = model;
  const fallback = env['ANTHROPIC_FALLBACK_MODEL']?.trim();
  if (fallback) options.fallbackModel = fallback;
  const maxTokens = env['ANTHROPIC_MAX_TOKENS']?.trim();
  if (maxTokens) {
    if (!/^\d+$/.test(maxTokens)) throw new AnthropicConfigError(`ANTHROPIC_MAX_TOKENS must be a whole number of tokens (got "${maxTokens}"). No request was made.`);
    options.maxTokens = Number(maxTokens);
  }
  return options;
}

/**
 * The planner configuration from the environment and options (options win).
 * Throws {@link AnthropicConfigError} naming what is wrong, never echoing the key.
 */
export function loadAnthropicConfig(options: AnthropicOptions = {}, env: Env = process.env): AnthropicConfig {
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const merged = { ...fromEnv(env), ...defined };
  if (!merged.apiKey) {
    throw new AnthropicConfigError(
      'ANTHROPIC_API_KEY is not set, so the anthropic planner cannot call the model. Set it to an Anthropic API key ' +
        '(or your gateway key, with ANTHROPIC_BASE_URL pointing at the gateway), or use --model rules. No request was made.',
    );
  }
  const parsed = AnthropicConfig.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(config)'}: ${issue.message}`);
    throw new AnthropicConfigError(`The anthropic planner configuration is not usable: ${problems.join('; ')}. No request was made.`);
  }
  if (parsed.data.maxTokensCeiling < parsed.data.maxTokens) {
    throw new AnthropicConfigError(`maxTokensCeiling (${parsed.data.maxTokensCeiling}) is below maxTokens (${parsed.data.maxTokens}). No request was made.`);
  }
  return parsed.data;
}

/** Models known to accept a forced tool choice (no always-on thinking). Others default to `auto`. */
const FORCING_MODELS = [/^claude-haiku-4-5/, /^claude-sonnet-4-6/, /^claude-opus-4-[5-8]/];

export function defaultToolChoice(model: string): ToolChoiceMode {
  const id = model.toLowerCase().split('/').pop() ?? model;
  return FORCING_MODELS.some((pattern) => pattern.test(id)) ? 'tool' : 'auto';
}
