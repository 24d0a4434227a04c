/**
 * Where prompt-cache breakpoints pay. A breakpoint caches the prefix of the request up to it
 * (tools, then system, then messages), but only when that prefix reaches the model's minimum
 * cacheable length; on a shorter prefix it caches nothing and still uses one of the four
 * breakpoints a request may carry. So each of the planner's four candidates (the tool, the
 * system prompt, the opening turn, the top-level one that follows the growing conversation) is
 * placed only where its prefix is long enough for the model, by the planner's own estimate
 * (characters / 4, which undercounts JSON and schemas, where tokens are shorter: the real prefix
 * is, if anything, longer than the estimate).
 *
 * Minimums from Anthropic's documentation: 1,024 tokens for Claude Sonnet 4.5 and 4.6, 4,096 for
 * Opus 4.5 and 4.6 and Haiku 4.5. A model id not in that list gets the largest known minimum, so
 * an unknown model never gets a breakpoint that caches nothing.
 */

const DOCUMENTED_CACHE_MINIMUMS: readonly { pattern: RegExp; tokens: number }[] = [
  { pattern: /^claude-sonnet-4-[56](?:-|$)/, tokens: 1_024 },
  { pattern: /^claude-opus-4-[56](?:-|$)/, tokens: 4_096 },
  { pattern: /^claude-haiku-4-5(?:-|$)/, tokens: 4_096 },
];

/** The largest documented minimum: what an unknown model id is assumed to need. */
export const CONSERVATIVE_CACHE_MINIMUM = Math.max(...DOCUMENTED_CACHE_MINIMUMS.map((entry) => entry.tokens));

/** The minimum cacheable prompt length of a model id (a gateway prefix like `anthropic/` is ignored). */
export function minimumCacheableTokens(model: string): number {
  const id = model.toLowerCase().split('/').pop() ?? model;
  return DOCUMENTED_CACHE_MINIMUMS.find((entry) => entry.pattern.test(id))?.tokens ?? CONSERVATIVE_CACHE_MINIMUM;
}

/**
 * The minimum a run plans its breakpoints with: the larger of its model's and its fallback
 * model's, so the tool and system breakpoints (part of the prefix every thinking block is bound
 * to) never have to move when a refused request goes to the fallback.
 */
export function runCacheMinimum(model: string, fallbackModel: string | undefined): number {
  return Math.max(minimumCacheableTokens(model), fallbackModel ? minimumCacheableTokens(fallbackModel) : 0);
}

/** Estimated prefix lengths (tokens) at each candidate breakpoint of a request. */
interface PrefixSizes {
  /** The tool definitions. */
  tools: number;
  /** Tools and the system prompt. */
  system: number;
  /** Tools, system and the opening block of the first user turn. */
  opening: number;
  /** The whole request: where the top-level breakpoint lands (its last block). */
  whole: number;
}

interface Breakpoints {
  tools: boolean;
  system: boolean;
  opening: boolean;
  conversation: boolean;
}

/** Which candidate breakpoints reach `minimum` (the conversation one only when asked for). */
export function breakpointsFor(sizes: PrefixSizes, minimum: number, cacheConversation: boolean): Breakpoints {
  return {
    tools: sizes.tools >= minimum,
    system: sizes.system >= minimum,
    opening: sizes.opening >= minimum,
    conversation: cacheConversation && sizes.whole >= minimum,
  };
}
