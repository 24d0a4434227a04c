/**
 * What the Messages API requires of a request's sampling parameters (each a 400
 * `invalid_request_error`, worded as the API words it):
 *
 * - `max_tokens` at most the model's documented maximum output ("Models overview", "Max output"):
 *   32,000 for Claude Opus 4 / 4.1, 64,000 for Sonnet 4 / 4.5 / 4.6, Haiku 4.5 and Opus 4.5,
 *   8,192 for Claude Haiku 3.5, 4,096 for Claude Haiku 3. Ids not listed here are not checked.
 * - `temperature` and `top_p` not both, on models from Claude Sonnet 4.5 / Haiku 4.5 / Opus 4.1
 *   on ("Migrating to Claude 4.5": "use only one").
 * - Extended thinking (`thinking.type: "enabled"`): `budget_tokens` at least 1,024 and below
 *   `max_tokens`; `temperature` only 1 and `top_k` not at all ("Extended thinking", feature
 *   compatibility).
 */

import type { RequestBody } from './server';

const MAX_OUTPUT: [RegExp, number][] = [
  [/^claude-opus-4-1?(-\d{8})?$/, 32_000],
  [/^claude-(sonnet-4(-[56])?|haiku-4-5|opus-4-5)(-\d{8})?$/, 64_000],
  [/^claude-3-5-haiku(-\d{8}|-latest)?$/, 8_192],
  [/^claude-3-haiku(-\d{8})?$/, 4_096],
];

const ONE_SAMPLING_KNOB = /^claude-(sonnet-4-[56]|haiku-4-5|opus-4-[156]|(sonnet|opus|haiku|fable)-5)/;

/** The documented maximum output of a model id, or null when this loopback does not know it. */
function documentedMaxOutput(model: string): number | null {
  const id = model.toLowerCase().split('/').pop() ?? model;
  return MAX_OUTPUT.find(([pattern]) => pattern.test(id))?.[1] ?? null;
}

/** The first sampling-parameter rule a request breaks, as the API words it; null when it keeps them all. */
export function paramProblem(body: RequestBody): string | null {
  const model = String(body.model);
  const id = model.toLowerCase().split('/').pop() ?? model;
  const maxTokens = Number(body.max_tokens);
  const ceiling = documentedMaxOutput(model);
  if (ceiling !== null && maxTokens > ceiling) return `max_tokens: ${maxTokens} > ${ceiling}, which is the maximum allowed number of output tokens for ${model}`;
  if (body['temperature'] !== undefined && body['top_p'] !== undefined && ONE_SAMPLING_KNOB.test(id)) {
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  }
  const thinking = body['thinking'] as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking?.type === 'enabled') {
    const budget = Number(thinking.budget_tokens);
    if (!(budget >= 1_024)) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (maxTokens <= budget) return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
    if (body['temperature'] !== undefined && body['temperature'] !== 1) return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
    if (body['top_k'] !== undefined) return '`top_k` must be unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  return null;
}
