import type { Frame } from 'playwright-core';
import { z } from 'zod';
import type { DomClickable, DomControl, DomError, DomFacts, DomFactsOptions } from '../../page/facts';
import { CONTROL_ROLES } from './aria-tree';
import { DOM_FACTS_SOURCE } from './page-code.generated';
import { pageCall } from './page-function';

/**
 * DOM facts the aria snapshot does not carry, read by ONE evaluate per frame. The page code is
 * its own module, `src/page` (DOM only: its own tsconfig and lint row), built into the string
 * DOM_FACTS_SOURCE by scripts/build-page-code.mjs; what comes back is parsed with the schema below.
 */
export type { DomClickable, DomControl, DomError, DomFacts } from '../../page/facts';

const flag = z.literal(true).optional();
const DomControlSchema: z.ZodType<DomControl> = z.object({
  role: z.string(),
  tag: z.string(),
  type: z.string().optional(),
  value: z.string().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  required: flag,
  invalid: flag,
  readonly: flag,
  gated: flag,
  href: z.string().optional(),
  action: z.string().optional(),
  options: z.array(z.string()).optional(),
  selected: z.array(z.string()).optional(),
  labelled: flag,
  placeholder: z.string().optional(),
  maxLength: z.number().int().positive().optional(),
  pattern: z.string().optional(),
  hint: z.string().optional(),
  title: z.string().optional(),
  inferred: z.string().optional(),
  ownLabel: z.string().optional(),
  radioName: z.string().optional(),
  sections: z.array(z.object({ label: z.string(), position: z.number().int().positive().optional() })).optional(),
});
const DomClickableSchema: z.ZodType<DomClickable> = z.object({ text: z.string(), gated: flag });
const DomErrorSchema: z.ZodType<DomError> = z.object({ message: z.string(), control: z.number().int(), label: z.string().optional(), group: z.string().optional() });
/** What the page code returns, as the observer accepts it (a page that broke JSON or the DOM gets no facts, never odd ones). */
export const DomFactsSchema: z.ZodType<DomFacts> = z.object({
  url: z.string(),
  baseUrl: z.string(),
  title: z.string(),
  controls: z.array(DomControlSchema),
  clickables: z.array(DomClickableSchema),
  alerts: z.array(DomErrorSchema),
  invalid: z.array(DomErrorSchema),
  passwordFields: z.number().int().nonnegative(),
  anyGated: z.boolean(),
  step: z.object({ current: z.string().optional(), index: z.number().int().optional(), count: z.number().int().optional(), valueText: z.string().optional() }),
});

const OPTIONS: DomFactsOptions = { controlRoles: [...CONTROL_ROLES] };
const CALL = pageCall(DOM_FACTS_SOURCE, OPTIONS);
/**
 * The facts come back as one JSON string: playwright's value-by-value serialisation of a big
 * object costs far more than the walk itself. (Sending the source each time costs little: V8's
 * eval cache compiles it once per document; a cached function handle measured no faster.)
 */
const AS_JSON = `JSON.stringify(${CALL})`;
/** The same facts returned by value: the fallback when the page broke JSON.stringify (old libraries patch toJSON). */
const AS_VALUE = CALL;

function parseFacts(value: unknown): DomFacts | null {
  const parsed = DomFactsSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function parseJson(json: unknown): DomFacts | null {
  if (typeof json !== 'string') return null;
  try {
    return parseFacts(JSON.parse(json));
  } catch {
    return null;
  }
}

/** Reads one frame's DOM facts; null when the frame went away or did not answer in time. */
export async function readDomFacts(frame: Frame, timeoutMs: number): Promise<DomFacts | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const json = await Promise.race([frame.evaluate(AS_JSON) as Promise<unknown>, timeout]);
    if (json === null) return null;
    const parsed = parseJson(json);
    if (parsed) return parsed;
    const value = await Promise.race([frame.evaluate(AS_VALUE) as Promise<unknown>, timeout]);
    return parseFacts(value);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
