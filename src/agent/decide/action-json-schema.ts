import { z } from 'zod';
import { Turn } from '../../shared/action';

/**
 * JSON Schema for strict tool use and structured outputs, generated from the zod contract.
 *
 * Strict mode constrains sampling to a subset of JSON Schema: closed objects
 * (`additionalProperties: false`) whose properties are all required, `anyOf` (never `oneOf`),
 * `enum`/`const` of primitives, `minItems` of 0 or 1, a few string formats. Length limits,
 * `maxItems`, numeric ranges and patterns are not supported, so they move into the
 * description as a hint for the model; zod still checks the full constraints afterwards.
 * An optional property becomes required and nullable; {@link omitNullOptionals} turns
 * the model's `null` back into "absent" before zod parses.
 */

export type JsonSchema = { [keyword: string]: unknown };

/** String formats strict mode accepts; others become a description hint. */
const STRICT_STRING_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** Keywords that say nothing the model needs (zod's safe-integer bounds, dialect tags). */
const DROPPED = new Set(['$schema', '$id', 'id', 'examples', 'readOnly', 'writeOnly', 'deprecated', '$comment']);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** One readable hint per constraint strict mode cannot enforce. */
function hintFor(keyword: string, value: unknown): string | null {
  switch (keyword) {
    case 'minLength':
      return value === 0 ? null : `at least ${String(value)} characters`;
    case 'maxLength':
      return `at most ${String(value)} characters`;
    case 'minItems':
      return `at least ${String(value)} items`;
    case 'maxItems':
      return `at most ${String(value)} items`;
    case 'pattern':
      return `matches /${String(value)}/`;
    case 'minimum':
      return value === -MAX_SAFE ? null : `at least ${String(value)}`;
    case 'maximum':
      return value === MAX_SAFE ? null : `at most ${String(value)}`;
    case 'exclusiveMinimum':
      return `more than ${String(value)}`;
    case 'exclusiveMaximum':
      return `less than ${String(value)}`;
    case 'multipleOf':
      return `a multiple of ${String(value)}`;
    case 'format':
      return `format ${String(value)}`;
    case 'default':
      return `default ${JSON.stringify(value)}`;
    case 'uniqueItems':
      return value === true ? 'no duplicates' : null;
    default:
      return `${keyword}: ${JSON.stringify(value)}`;
  }
}

function isNullable(schema: JsonSchema): boolean {
  if (schema['type'] === 'null') return true;
  if (Array.isArray(schema['type']) && schema['type'].includes('null')) return true;
  const variants = schema['anyOf'];
  return Array.isArray(variants) && variants.some((variant) => isObject(variant) && isNullable(variant));
}

/** Required-and-nullable form of an optional property. */
function nullable(schema: JsonSchema): JsonSchema {
  if (isNullable(schema)) return schema;
  const { description, ...rest } = schema;
  const wrapped: JsonSchema = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) wrapped['description'] = description;
  return wrapped;
}

function transform(input: JsonSchema, path: string): JsonSchema {
  const node: JsonSchema = { ...input };
  const out: JsonSchema = {};
  const hints: string[] = [];
  const take = (keyword: string): unknown => {
    const value = node[keyword];
    delete node[keyword];
    return value;
  };

  const defs = take('$defs');
  if (isObject(defs)) {
    out['$defs'] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, transform(def as JsonSchema, `${path}.$defs.${name}`)]));
  }
  const ref = take('$ref');
  if (typeof ref === 'string') {
    out['$ref'] = ref;
    return out;
  }
  for (const keyword of DROPPED) take(keyword);

  const enumValues = take('enum');
  const constValue = take('const');
  const literal = (Array.isArray(enumValues) && enumValues.every(isPrimitive)) || (constValue !== undefined && isPrimitive(constValue));
  if (Array.isArray(enumValues) && enumValues.every(isPrimitive)) out['enum'] = enumValues;
  if (constValue !== undefined && isPrimitive(constValue)) out['const'] = constValue;
  const type = take('type');

  const anyOf = take('anyOf');
  const oneOf = take('oneOf');
  const allOf = take('allOf');
  if (Array.isArray(anyOf ?? oneOf)) {
    out['anyOf'] = ((anyOf ?? oneOf) as JsonSchema[]).map((variant, i) => transform(variant, `${path}.anyOf[${i}]`));
  } else if (Array.isArray(allOf)) {
    out['allOf'] = (allOf as JsonSchema[]).map((part, i) => transform(part, `${path}.allOf[${i}]`));
  } else if (!literal) {
    if (type === undefined) throw new Error(`${path}: a strict schema needs a type here (or anyOf / enum / const)`);
    out['type'] = type;
  }

  const description = take('description');
  const title = take('title');
  if (typeof title === 'string') out['title'] = title;

  const types = Array.isArray(type) ? type : [type];
  if (types.includes('object')) {
    const properties = take('properties');
    const additional = take('additionalProperties');
    if (isObject(additional) || (additional === true && !isObject(properties))) {
      throw new Error(`${path}: open-ended objects (records, maps) cannot be strict; give the object named properties`);
    }
    take('propertyNames');
    const props = isObject(properties) ? properties : {};
    const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
    take('required');
    out['properties'] = Object.fromEntries(
      Object.entries(props).map(([key, prop]) => {
        const strictProp = transform(prop as JsonSchema, `${path}.${key}`);
        return [key, required.has(key) ? strictProp : nullable(strictProp)];
      }),
    );
    out['required'] = Object.keys(props);
    out['additionalProperties'] = false;
  }
  if (types.includes('array')) {
    const items = take('items');
    if (take('prefixItems') !== undefined) throw new Error(`${path}: tuples (prefixItems) cannot be strict; use an array or an object`);
    if (isObject(items)) out['items'] = transform(items, `${path}[]`);
    const minItems = take('minItems');
    if (minItems === 0 || minItems === 1) out['minItems'] = minItems;
    else if (minItems !== undefined) hints.push(hintFor('minItems', minItems) ?? '');
  }
  if (types.includes('string')) {
    const format = take('format');
    if (typeof format === 'string' && STRICT_STRING_FORMATS.has(format)) out['format'] = format;
    else if (format !== undefined) hints.push(hintFor('format', format) ?? '');
  }

  for (const [keyword, value] of Object.entries(node)) {
    const hint = hintFor(keyword, value);
    if (hint) hints.push(hint);
  }
  const text = [typeof description === 'string' ? description : '', hints.filter(Boolean).length > 0 ? `(${hints.filter(Boolean).join('; ')})` : '']
    .filter(Boolean)
    .join(' ');
  if (text) out['description'] = text;
  return out;
}

/** Makes a generated JSON Schema strict-compatible (see the module comment). Pure; the input is not changed. */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  const strict = transform(schema, '(root)');
  const cycle = recursiveDef(strict);
  if (cycle) throw new Error(`(root).$defs.${cycle}: recursive schemas (z.lazy referring to itself) cannot be strict; the API refuses them (400). Give the data a fixed depth`);
  return strict;
}

/** The name of a `$defs` entry that refers back to itself (directly or through others), if any. */
function recursiveDef(schema: JsonSchema): string | null {
  const defs = isObject(schema['$defs']) ? schema['$defs'] : {};
  const refsIn = (value: unknown, out: Set<string>): Set<string> => {
    if (Array.isArray(value)) for (const item of value) refsIn(item, out);
    else if (isObject(value)) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') out.add(inner.replace(/^#\/\$defs\//, ''));
        else refsIn(inner, out);
      }
    }
    return out;
  };
  for (const name of Object.keys(defs)) {
    const seen = new Set<string>();
    const queue = [...refsIn(defs[name], new Set())];
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (next === name) return name;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...refsIn(defs[next], new Set()));
    }
  }
  return null;
}

const looseCache = new WeakMap<z.ZodType, JsonSchema>();

/** The JSON Schema zod generates for what a model may send (the schema's input side). */
function looseJsonSchema(schema: z.ZodType): JsonSchema {
  let cached = looseCache.get(schema);
  if (!cached) {
    cached = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as JsonSchema;
    looseCache.set(schema, cached);
  }
  return cached;
}

/** The strict-compatible JSON Schema of a zod schema. */
export function strictJsonSchema(schema: z.ZodType): JsonSchema {
  return toStrictJsonSchema(looseJsonSchema(schema));
}

/** The strict JSON Schema of a planner `Turn`. */
export function turnJsonSchema(): JsonSchema {
  return strictJsonSchema(Turn);
}

function variantFor(value: JsonSchema, variants: JsonSchema[]): JsonSchema | undefined {
  const objects = variants.filter((variant) => isObject(variant['properties']));
  const matchesLiterals = (variant: JsonSchema): boolean =>
    Object.entries(variant['properties'] as JsonSchema).every(([key, prop]) => {
      if (!isObject(prop)) return true;
      if (prop['const'] !== undefined) return value[key] === prop['const'];
      return true;
    });
  const keysFit = (variant: JsonSchema): boolean => Object.keys(value).every((key) => key in (variant['properties'] as JsonSchema));
  return objects.find((variant) => matchesLiterals(variant) && keysFit(variant)) ?? objects.find(matchesLiterals);
}

/**
 * Drops `null` from properties the loose schema marks optional, so that zod sees them absent.
 * Walks objects, arrays and anyOf/oneOf variants (picked by their `const` discriminators).
 */
export function omitNullOptionals(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isObject(items) ? value.map((item) => omitNullOptionals(item, items)) : value;
  }
  if (!isObject(value)) return value;
  const variants = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) {
    const variant = variantFor(value, variants);
    return variant ? omitNullOptionals(value, variant) : value;
  }
  const properties = schema['properties'];
  if (!isObject(properties)) return value;
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const out: JsonSchema = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !required.has(key) && key in properties) continue;
    const prop = properties[key];
    out[key] = isObject(prop) ? omitNullOptionals(item, prop) : item;
  }
  return out;
}

/** Parses what a model produced under a strict schema: nulls of optional properties count as absent. */
export function parseStrictOutput<T extends z.ZodType>(schema: T, value: unknown): ReturnType<T['safeParse']> {
  return schema.safeParse(omitNullOptionals(value, looseJsonSchema(schema))) as ReturnType<T['safeParse']>;
}
