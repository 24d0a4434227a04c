import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { Turn } from '../../../shared/action';
import { type JsonSchema, parseStrictOutput, strictJsonSchema } from '../action-json-schema';
import { ACT_ON_PAGE, TOOL_DESCRIPTION } from './prompt';

/**
 * The input of the one tool: a `Turn` plus `want_screenshot`, the model's way to ask for a
 * screenshot with the next page read (the screenshot policy's third reason). The planner
 * strips it and hands the engine a plain `Turn`.
 */
const ActOnPageInput = Turn.extend({
  want_screenshot: z
    .boolean()
    .optional()
    .describe('true to get a screenshot of the page with the next read, when the read leaves the layout unclear; otherwise false.'),
});
type ActOnPageInput = z.infer<typeof ActOnPageInput>;

let schema: JsonSchema | undefined;

/** The strict input schema of `act_on_page`, generated from the zod contract. */
export function actOnPageJsonSchema(): JsonSchema {
  schema ??= strictJsonSchema(ActOnPageInput);
  return schema;
}

/**
 * The tool definition: strict; `cache` puts the first cache breakpoint on it (only where the
 * tool alone reaches the model's minimum cacheable length, see `cache-breakpoints.ts`).
 */
export function actOnPageTool(cache = false): Tool {
  return {
    name: ACT_ON_PAGE,
    description: TOOL_DESCRIPTION,
    input_schema: actOnPageJsonSchema() as Tool.InputSchema,
    strict: true,
    ...(cache ? { cache_control: { type: 'ephemeral' as const } } : {}),
  };
}

type ParsedActOnPage = { ok: true; turn: Turn; wantScreenshot: boolean } | { ok: false; problems: string[] };

/** Validates a tool input against the full zod contract (lengths, counts, enums). */
export function parseActOnPage(input: unknown): ParsedActOnPage {
  const parsed = parseStrictOutput(ActOnPageInput, input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)'}: ${issue.message}`);
    return { ok: false, problems };
  }
  const { want_screenshot: wantScreenshot, ...turn } = parsed.data;
  return { ok: true, turn, wantScreenshot: wantScreenshot === true };
}
