/**
 * Token estimates for comparing what the model would be sent. No tokenizer ships offline, so:
 *
 * - `estimateTokens`: characters / 4, rounded up — the same rule the Anthropic planner uses to
 *   budget its requests (`estimateTokens` in src/agent/decide/anthropic/conversation.ts). The
 *   benchmark's targets are judged on this one.
 * - `countPieces`: a cross-check closer to how BPE tokenizers split text: every run of letters is
 *   one piece, digits go in groups of up to three, every other non-space character is a piece of
 *   its own. Markup-heavy text (YAML refs, HTML tags) costs more here than chars/4 says, prose less.
 */

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const PIECE = /\p{L}+|\p{N}{1,3}|[^\s\p{L}\p{N}]/gu;

export function countPieces(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(PIECE)) n++;
  return n;
}
