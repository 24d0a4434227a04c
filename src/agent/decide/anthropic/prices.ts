import { z } from 'zod';
import type { TokenUsage } from '../../../shared/run';

/** USD per million tokens. Cache writes are the 5-minute TTL the planner uses. */
const ModelPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
});
type ModelPrice = z.infer<typeof ModelPrice>;
export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * List prices of the Claude API (platform.claude.com "Pricing", checked 2026-12-01).
 * Prices change: override or extend them with `AnthropicConfig.prices`; a gateway may bill differently.
 * Claude Haiku 5.5 is priced at its rate for prompts up to 100K tokens.
 */
export const DEFAULT_PRICES: PriceTable = {
  'claude-sonnet-5-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 },
  'claude-opus-5-5': { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 },
  'claude-haiku-5-5': { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 },
  'claude-fable-5-1': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 },
  'claude-sonnet-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  'claude-opus-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
};

/**
 * The price entry for a model id: exact, else the longest key the id starts with at a
 * `-` boundary (so `claude-haiku-4-5-20251001` finds `claude-haiku-4-5`, and
 * `claude-sonnet-5-5` never lands on `claude-sonnet-5`). A gateway prefix (`anthropic/`) is ignored.
 */
export function priceFor(model: string, table: PriceTable): ModelPrice | undefined {
  const id = model.toLowerCase().split('/').pop() ?? model;
  if (table[id]) return table[id];
  const keys = Object.keys(table)
    .filter((key) => id.startsWith(`${key}-`))
    .sort((a, b) => b.length - a.length);
  return keys[0] ? table[keys[0]] : undefined;
}

interface RawUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Token counts of one response, priced (cost 0 when the model has no price entry). */
export function usageOf(raw: RawUsage, price: ModelPrice | undefined): TokenUsage {
  const inputTokens = raw.input_tokens;
  const outputTokens = raw.output_tokens;
  const cacheReadTokens = raw.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = raw.cache_creation_input_tokens ?? 0;
  const costUsd = price
    ? (inputTokens * price.input + outputTokens * price.output + cacheReadTokens * price.cacheRead + cacheWriteTokens * price.cacheWrite) / 1_000_000
    : 0;
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
