import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type JsonSchema,
  omitNullOptionals,
  parseStrictOutput,
  strictJsonSchema,
  toStrictJsonSchema,
  turnJsonSchema,
} from '../../../src/agent/decide/action-json-schema';
import { actOnPageJsonSchema, parseActOnPage } from '../../../src/agent/decide/anthropic';
import { MAX_ACTIONS_PER_TURN, Turn } from '../../../src/shared/action';

/** Keywords strict tool use accepts (structured outputs' JSON Schema subset). */
const STRICT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'anyOf', 'allOf', 'enum', 'const', 'description', 'title', 'format', '$ref', '$defs']);

function walk(schema: unknown, visit: (node: JsonSchema, path: string) => void, path = '$'): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as JsonSchema;
  visit(node, path);
  for (const [key, value] of Object.entries(node.properties ?? {})) walk(value, visit, `${path}.${key}`);
  if (node['items']) walk(node['items'], visit, `${path}[]`);
  for (const list of ['anyOf', 'allOf', 'oneOf']) (node[list] as unknown[] | undefined)?.forEach((variant, i) => walk(variant, visit, `${path}.${list}[${i}]`));
}

/** A validator for the strict subset, to show the schema accepts the sample turns. */
function valid(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(schema['anyOf'])) return (schema['anyOf'] as JsonSchema[]).some((variant) => valid(value, variant));
  if ('const' in schema) return value === schema['const'];
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).includes(value);
  const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string];
  const typeOf = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (!types.includes(typeOf) && !(typeOf === 'integer' && types.includes('number'))) return false;
  if (typeOf === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
    if (schema['additionalProperties'] === false && Object.keys(object).some((key) => !(key in properties))) return false;
    if (((schema['required'] as string[]) ?? []).some((key) => !(key in object))) return false;
    return Object.entries(object).every(([key, item]) => valid(item, properties[key] as JsonSchema));
  }
  if (typeOf === 'array') {
    const items = value as unknown[];
    if (typeof schema['minItems'] === 'number' && items.length < schema['minItems']) return false;
    return items.every((item) => valid(item, schema['items'] as JsonSchema));
  }
  return true;
}

const SAMPLE_TURNS: Turn[] = [
  {
    reasoning: 'Fill the business name and owner from the case, pick the district, then continue.',
    actions: [
      { type: 'fill', ref: 'r4c12', field: 'business_name' },
      { type: 'fill', ref: 'r4c13', field: 'owner_name' },
      { type: 'select', ref: 'r4c14', field: 'district' },
      { type: 'check', ref: 'r4c15', checked: true, field: 'has_employees' },
      { type: 'click', ref: 'r4c20' },
    ],
  },
  { reasoning: 'The box kept last year\'s value.', actions: [{ type: 'clear', ref: 'r4c16' }] },
  { reasoning: '', actions: [{ type: 'press', key: 'Enter' }, { type: 'goto', url: 'https://shops.portal.test/apply' }] },
  { reasoning: 'The case has no PAN.', actions: [{ type: 'ask', kind: 'missing_value', question: 'What is the PAN of the business?', field: 'pan' }] },
  { reasoning: 'Confirm?', actions: [{ type: 'ask', kind: 'confirmation', question: 'Tick the declaration?', field: null }] },
  { reasoning: 'Submitted.', actions: [{ type: 'done', proof: 'Application number SHP-2026-00417 on the confirmation page' }] },
  { reasoning: 'Not eligible.', actions: [{ type: 'fail', reason: 'The portal says the licence expired over a year ago.' }] },
];

describe('the strict JSON Schema of a Turn', () => {
  const schema = turnJsonSchema();

  it('closes every object and requires every property', () => {
    let objects = 0;
    walk(schema, (node, path) => {
      if (node['type'] === 'object' || (Array.isArray(node['type']) && node['type'].includes('object'))) {
        objects += 1;
        expect(node['additionalProperties'], path).toBe(false);
        expect([...((node['required'] as string[]) ?? [])].sort(), path).toEqual(Object.keys(node['properties'] as object).sort());
      }
    });
    expect(objects).toBe(1 + 11); // the turn and the eleven action variants
  });

  it('uses anyOf and never oneOf, and only keywords strict mode supports', () => {
    walk(schema, (node, path) => {
      expect(node['oneOf'], path).toBeUndefined();
      for (const keyword of Object.keys(node)) expect(STRICT_KEYWORDS.has(keyword), `${path}: ${keyword}`).toBe(true);
      if (node['minItems'] !== undefined) expect([0, 1], path).toContain(node['minItems']);
    });
    const actions = (schema['properties'] as Record<string, JsonSchema>)['actions'] as JsonSchema;
    expect(((actions['items'] as JsonSchema)['anyOf'] as unknown[]).length).toBe(11);
    expect(JSON.stringify(schema)).not.toMatch(/maxLength|minLength|maxItems|"pattern"|\$schema/);
  });

  it('keeps the dropped limits as a hint for the model', () => {
    const actions = (schema['properties'] as Record<string, JsonSchema>)['actions'] as JsonSchema;
    expect(actions['minItems']).toBe(1);
    expect(actions['description']).toContain(`at most ${MAX_ACTIONS_PER_TURN} items`);
    expect(((schema['properties'] as Record<string, JsonSchema>)['reasoning'] as JsonSchema)['description']).toContain('at most 2000 characters');
  });

  it('round-trips the sample turns: the schema accepts them and zod parses them back unchanged', () => {
    for (const turn of SAMPLE_TURNS) {
      // Strict mode sends every property: an optional one the turn leaves out comes as null (fill's format, select's option).
      const nulls = (a: (typeof turn.actions)[number]) => (a.type === 'fill' && a.format === undefined ? { ...a, format: null } : a.type === 'select' && a.option === undefined ? { ...a, option: null } : a);
      const wire = JSON.parse(JSON.stringify({ ...turn, actions: turn.actions.map(nulls) })) as unknown;
      expect(valid(wire, schema), JSON.stringify(turn)).toBe(true);
      const parsed = parseStrictOutput(Turn, wire);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(turn);
    }
  });

  it('is stricter in zod than in the schema: lengths and counts are still checked', () => {
    const tooMany = { reasoning: 'x', actions: Array.from({ length: MAX_ACTIONS_PER_TURN + 1 }, () => ({ type: 'press', key: 'Tab' })) };
    expect(valid(tooMany, schema)).toBe(true);
    expect(parseStrictOutput(Turn, tooMany).success).toBe(false);
    expect(parseStrictOutput(Turn, { reasoning: 'x', actions: [{ type: 'fill', ref: '', field: 'a' }] }).success).toBe(false);
    expect(valid({ reasoning: 'x', actions: [{ type: 'fill', ref: 'r1', field: 'a', value: 'typed' }] }, schema)).toBe(false);
  });
});

describe('the act_on_page input schema', () => {
  it('is the Turn schema plus a nullable want_screenshot, all required', () => {
    const schema = actOnPageJsonSchema();
    expect(schema['required']).toEqual(['reasoning', 'actions', 'want_screenshot']);
    expect((schema['properties'] as Record<string, JsonSchema>)['want_screenshot']).toMatchObject({ anyOf: [{ type: 'boolean' }, { type: 'null' }] });
    expect((schema['properties'] as Record<string, unknown>)['actions']).toEqual((turnJsonSchema()['properties'] as Record<string, unknown>)['actions']);
  });

  it('parses to a plain Turn', () => {
    for (const want of [true, false, null]) {
      const parsed = parseActOnPage({ ...SAMPLE_TURNS[0], want_screenshot: want });
      expect(parsed).toEqual({ ok: true, turn: SAMPLE_TURNS[0], wantScreenshot: want === true });
    }
    const bad = parseActOnPage({ reasoning: 'x', actions: [], want_screenshot: false });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join(' ')).toMatch(/^actions: /);
  });
});

describe('strict schemas of other zod schemas', () => {
  const Fee = z.strictObject({
    amount: z.number().min(0),
    currency: z.enum(['INR', 'EUR']),
    note: z.string().max(40).optional(),
    due: z.string().nullable(),
    lines: z.array(z.object({ label: z.string(), paid: z.boolean().optional() })).min(2),
  });

  it('makes optional properties required and nullable, and zod sees null as absent', () => {
    const schema = strictJsonSchema(Fee);
    expect(schema['required']).toEqual(['amount', 'currency', 'note', 'due', 'lines']);
    const props = schema['properties'] as Record<string, JsonSchema>;
    expect(props['note']).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }], description: '(at most 40 characters)' });
    expect(props['due']).toEqual({ type: ['string', 'null'] });
    expect(props['lines']).toMatchObject({ type: 'array', description: '(at least 2 items)' });
    const wire = { amount: 250, currency: 'INR', note: null, due: null, lines: [{ label: 'Fee', paid: null }, { label: 'Late fee', paid: true }] };
    expect(valid(wire, schema)).toBe(true);
    expect(parseStrictOutput(Fee, wire).data).toEqual({ amount: 250, currency: 'INR', due: null, lines: [{ label: 'Fee' }, { label: 'Late fee', paid: true }] });
  });

  it('picks the anyOf variant by its const discriminator when dropping nulls', () => {
    const loose = { anyOf: [{ type: 'object', properties: { type: { const: 'a' }, x: { type: 'string' } }, required: ['type'] }, { type: 'object', properties: { type: { const: 'b' }, x: { type: 'string' } }, required: ['type', 'x'] }] };
    expect(omitNullOptionals({ type: 'a', x: null }, loose)).toEqual({ type: 'a' });
    expect(omitNullOptionals({ type: 'b', x: null }, loose)).toEqual({ type: 'b', x: null });
  });

  it('refuses what strict mode cannot express', () => {
    expect(() => strictJsonSchema(z.object({ byName: z.record(z.string(), z.number()) }))).toThrow(/records/);
    expect(() => toStrictJsonSchema({ type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }] } } })).toThrow(/tuples/);
  });

  it('refuses a recursive schema, which the API answers with a 400, and keeps a shared non-recursive one', () => {
    type Node = { name: string; kids: Node[] };
    const Node: z.ZodType<Node> = z.lazy(() => z.strictObject({ name: z.string(), kids: z.array(Node) }));
    expect(() => strictJsonSchema(z.strictObject({ root: Node }))).toThrow(/recursive schemas .* cannot be strict/);
    const Leaf = z.strictObject({ v: z.string() });
    expect(() => strictJsonSchema(z.strictObject({ a: Leaf, b: Leaf }))).not.toThrow();
  });
});
