/**
 * What the Messages API requires of a strict JSON schema (a tool with `strict: true`, or
 * `output_config.format` of type `json_schema`): the "JSON Schema limitations" of Anthropic's
 * structured-outputs page. A schema outside the subset is a 400 `invalid_request_error` before
 * anything is sampled.
 *
 * - Every object is closed: `additionalProperties` must be `false`.
 * - Numeric constraints (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
 *   `multipleOf`) and string length constraints (`minLength`, `maxLength`) are not supported.
 * - Arrays: `minItems` of 0 or 1 only; `maxItems`, `uniqueItems` are not supported.
 * - String `format`: only date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid.
 * - `oneOf`, `not`, `if`/`then`/`else`, `patternProperties` and other conditional keywords are
 *   not supported; recursive schemas (`$ref` back into itself) are not supported.
 */

import type { RequestBody } from './server';

type Schema = { [keyword: string]: unknown };

const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
const UNSUPPORTED = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems', 'uniqueItems', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentSchemas', 'dependentRequired', 'unevaluatedProperties', 'propertyNames', 'contains', 'minProperties', 'maxProperties'];

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : [];
}

function problemIn(schema: unknown, path: string): string | null {
  if (!isSchema(schema)) return null;
  for (const keyword of UNSUPPORTED) {
    if (keyword in schema) return `${path}: The '${keyword}' keyword is not supported in strict JSON schemas (structured outputs)`;
  }
  const types = typesOf(schema);
  if (types.includes('object') || 'properties' in schema) {
    if (schema['additionalProperties'] !== false) return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  if ('minItems' in schema && schema['minItems'] !== 0 && schema['minItems'] !== 1) {
    return `${path}: For 'array' type, 'minItems' values other than 0 or 1 are not supported`;
  }
  if ('format' in schema && !FORMATS.has(String(schema['format']))) return `${path}: String format '${String(schema['format'])}' is not supported`;
  const children: [string, unknown][] = [];
  if (isSchema(schema['properties'])) for (const [name, child] of Object.entries(schema['properties'])) children.push([`${path}.properties.${name}`, child]);
  for (const key of ['$defs', 'definitions'] as const) {
    if (isSchema(schema[key])) for (const [name, child] of Object.entries(schema[key])) children.push([`${path}.${key}.${name}`, child]);
  }
  if ('items' in schema) children.push([`${path}.items`, schema['items']]);
  for (const key of ['anyOf', 'allOf', 'prefixItems'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((child, i) => children.push([`${path}.${key}.${i}`, child]));
  }
  for (const [where, child] of children) {
    const problem = problemIn(child, where);
    if (problem) return problem;
  }
  return null;
}

/** Whether a `$ref` points back to a schema that contains it (a recursive schema). */
function recursiveRef(root: Schema, path: string): string | null {
  const defs = { ...(isSchema(root['$defs']) ? root['$defs'] : {}), ...(isSchema(root['definitions']) ? root['definitions'] : {}) };
  const refsIn = (value: unknown, out: string[] = []): string[] => {
    if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
    else if (isSchema(value)) {
      for (const [key, v] of Object.entries(value)) {
        if (key === '$ref' && typeof v === 'string') out.push(v);
        else refsIn(v, out);
      }
    }
    return out;
  };
  const target = (ref: string): unknown => (ref === '#' ? root : defs[ref.replace(/^#\/(\$defs|definitions)\//, '')]);
  for (const start of refsIn(root)) {
    const seen = new Set<string>();
    const queue = [start];
    while (queue.length > 0) {
      const ref = queue.shift()!;
      if (seen.has(ref)) return `${path}: Recursive schemas are not supported in strict JSON schemas (structured outputs)`;
      seen.add(ref);
      queue.push(...refsIn(target(ref)));
    }
  }
  return null;
}

function schemaProblem(schema: unknown, path: string): string | null {
  if (!isSchema(schema)) return `${path}: Input should be a valid dictionary`;
  return problemIn(schema, path) ?? recursiveRef(schema, path);
}

/** The first strict-schema rule a request breaks, as the API words it; null when it keeps them all. */
export function strictSchemaProblem(body: RequestBody): string | null {
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (tool['strict'] !== true) continue;
    const problem = schemaProblem(tool['input_schema'], `tools.${i}.custom.input_schema`);
    if (problem) return problem;
  }
  const format = (body['output_config'] as { format?: { type?: unknown; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') return schemaProblem(format.schema, 'output_config.format.schema');
  return null;
}
