import { z } from 'zod';
import type { CarriedFile } from './control-submission';

/**
 * The portal's request map: which requests of a portal are harmless (a section `save`, a
 * `lookup`), which send the application (`submit`) or pay (`payment`), and which are never sent
 * (`forbidden`). The commit gate lets a request that can change state go without asking only when
 * an entry names it harmless, by method, path and shape; everything else that can change state
 * waits for the clerk. Entries come from the profile (declared by the office lead) and from the
 * clerk (learned: "a section save of this portal: don't ask again").
 */
const RequestKind = z.enum(['save', 'lookup', 'submit', 'payment', 'forbidden']);
type RequestKind = z.infer<typeof RequestKind>;

/** The kinds a clerk may teach from a held request's card. */
export const LearnableKind = z.enum(['save', 'lookup']);
export type LearnableKind = z.infer<typeof LearnableKind>;

/**
 * Methods a map entry can name. `WEBSOCKET` names a socket's address: its messages cannot be
 * judged, so a socket opens only where the map names it harmless.
 */
const MapMethod = z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'WEBSOCKET']);
type MapMethod = z.infer<typeof MapMethod>;

/**
 * Names of fields whose value chooses what a request does (`action=submit` to a save path). A
 * request carrying one to a harmless entry matches only with a value the entry lists.
 */
const CHOOSING_FIELDS: ReadonlySet<string> = new Set([
  'action', 'stage', 'status', 'step', 'part', 'phase', 'state', 'mode', 'intent', 'op', 'operation', 'operationname',
  'command', 'cmd', 'do', 'task', 'event', 'type', 'submit', 'final', 'finalise', 'finalize', 'commit', 'lodge', 'confirm',
  'next', 'goto', 'go', 'button', 'method', '_method', 'verb', 'target', 'page', 'section', 'view', 'save', 'send', 'complete',
]);

/** A choosing field's name, however the portal decorates it (`_action`, `form[step]`, `wizard-stage`). */
export function isChoosing(name: string): boolean {
  const lower = name.toLowerCase();
  const last = /[[.-]([a-z0-9_]+)\]?$/.exec(lower)?.[1] ?? lower;
  return CHOOSING_FIELDS.has(lower) || CHOOSING_FIELDS.has(lower.replace(/^[^a-z0-9]+/, '')) || CHOOSING_FIELDS.has(last);
}

/** Values a checkbox sends when ticked: chosen on the page, never data of their own. */
export const TICK_VALUES: ReadonlySet<string> = new Set(['yes', 'on', 'true', '1']);

/** A map entry's path: exact, segment by segment, where `*` stands for any one segment. */
const MapPath = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\/[A-Za-z0-9._~%*/-]*$/, 'an absolute path such as /apply/owner (letters, digits, . _ ~ % - and * for one segment)');

const FieldName = z.string().min(1).max(100);

export const RequestMapEntry = z.strictObject({
  method: MapMethod,
  path: MapPath,
  /** One of the portal's allowedHosts; any of them when absent. */
  host: z.string().min(1).max(261).optional(),
  kind: RequestKind,
  /** The only field names (query and body) the request may carry; any names when absent. */
  fields: z.array(FieldName).max(300).optional(),
  /** The values a field may take (a choosing field's `action: ["save"]`, a checkbox's value). */
  values: z.record(FieldName, z.array(z.string().max(200)).min(1).max(50)).optional(),
  /** Fields whose values the portal's own pages or the office's vault supply (a token, the login): not checked against the case. */
  pageFields: z.array(FieldName).max(50).optional(),
  /** A GraphQL operation's name: the request matches only when it runs this one operation. */
  operation: z.string().min(1).max(100).optional(),
});
export type RequestMapEntry = z.infer<typeof RequestMapEntry>;

/** A learned entry as the store keeps it: per portal, versioned, with who taught it. */
export const LearnedMapEntry = z.object({
  portal: z.string().min(1),
  id: z.number().int().positive(),
  version: z.number().int().positive(),
  entry: RequestMapEntry,
  taughtBy: z.string().min(1),
  runId: z.string().nullable(),
  createdAt: z.string(),
});
export type LearnedMapEntry = z.infer<typeof LearnedMapEntry>;

/** Where learned entries are kept (the store); the run reads them at start and adds what the clerk teaches. */
export interface RequestMapStore {
  listMap(portal?: string): Promise<LearnedMapEntry[]>;
  /** Adds (or, for the same method, host, path and shape, replaces with a new version) one entry. */
  learn(portal: string, entry: RequestMapEntry, taughtBy: string, runId: string | null): Promise<LearnedMapEntry>;
  removeMapEntry(portal: string, id: number): Promise<boolean>;
}

/** Whether a value (or a file, by its bytes' hash) is from the case or the clerk. */
export type CaseCheck = (value: string, file?: CarriedFile) => boolean;

/** What the gate read of one request: its effective method, where it goes, what it carries. */
export interface RequestShape {
  /** The method the server acts on: an override (`_method`, `X-HTTP-Method-Override`) wins. */
  method: string;
  host: string;
  /** The path as a server reads it (`serverPath`). */
  path: string;
  /** Every field it carries, query then body. */
  pairs: readonly { name: string; value: string; file?: CarriedFile }[];
  /** The GraphQL operation it runs, when it is one. */
  graphql?: { type: 'query' | 'mutation' | 'subscription'; name?: string };
}

/** How an entry fits a request: not at all, by method and path only (another shape), or wholly. */
type EntryFit = { fit: 'none' } | { fit: 'other-shape'; why: string } | { fit: 'match' };

/** Whether a map path names a server path: the same number of segments, each equal or `*`. */
export function mapPathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/').filter(Boolean);
  const have = path.toLowerCase().split('/').filter(Boolean);
  return want.length === have.length && want.every((segment, i) => segment === '*' || decoded(segment).toLowerCase() === have[i]);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * How `entry` fits `shape`. Submit, payment and forbidden entries fit by method and path alone
 * (holding more is the safe side). A harmless entry fits only the shape it names: every field
 * among its `fields`, each choosing field with a value it lists, its GraphQL operation; and,
 * where `fromCase` is given, every other value from the case or the clerk (or empty, or a
 * checkbox's tick), except its `pageFields`.
 */
export function entryFits(entry: RequestMapEntry, shape: RequestShape, fromCase?: CaseCheck): EntryFit {
  if (entry.method !== shape.method) return { fit: 'none' };
  if (entry.host !== undefined && entry.host.toLowerCase() !== shape.host.toLowerCase()) return { fit: 'none' };
  if (!mapPathMatches(entry.path, shape.path)) return { fit: 'none' };
  if (entry.kind !== 'save' && entry.kind !== 'lookup') return { fit: 'match' };
  const why = shapeProblem(entry, shape, fromCase);
  return why ? { fit: 'other-shape', why } : { fit: 'match' };
}

function shapeProblem(entry: RequestMapEntry, shape: RequestShape, fromCase?: CaseCheck): string | undefined {
  if (entry.operation !== undefined || shape.graphql) {
    if (!shape.graphql) return `it is not the GraphQL operation ${entry.operation ?? ''}`;
    if (entry.operation === undefined) return `it runs a GraphQL ${shape.graphql.type}${shape.graphql.name ? ` (${shape.graphql.name})` : ''} the entry does not name`;
    if (shape.graphql.name !== entry.operation) return `it runs the GraphQL ${shape.graphql.type} ${shape.graphql.name ?? '(anonymous)'}, not ${entry.operation}`;
    if (shape.graphql.type === 'mutation' && entry.kind === 'lookup') return `it runs a mutation, and the entry names a look-up`;
  }
  const named = new Set([...(entry.fields ?? []), ...Object.keys(entry.values ?? {}), ...(entry.pageFields ?? [])].map((n) => n.toLowerCase()));
  const page = new Set((entry.pageFields ?? []).map((n) => n.toLowerCase()));
  const values = new Map(Object.entries(entry.values ?? {}).map(([n, v]) => [n.toLowerCase(), v]));
  for (const { name, value, file } of shape.pairs) {
    const key = name.toLowerCase();
    if (entry.fields !== undefined && !named.has(key)) return `it carries the field “${name}”, which the entry does not name`;
    const allowed = values.get(key);
    if (allowed) {
      if (!allowed.includes(value)) return `its field “${name}” is “${value.slice(0, 60)}”, not one the entry lists (${allowed.join(', ')})`;
      continue;
    }
    if (isChoosing(key) && !page.has(key)) return `it carries “${name}=${value.slice(0, 60)}”, a field that chooses what the request does, which the entry does not name`;
    if (page.has(key) || !fromCase) continue;
    if (file ? noFile(file) || fromCase(value, file) : value === '' || TICK_VALUES.has(value.toLowerCase()) || fromCase(value)) continue;
    return `its field “${name}” carries a value not from the case`;
  }
  return undefined;
}

/**
 * The entry a clerk teaches from one held request: its method, host and exact path, the field
 * names it carries, and the values of its choosing fields (so `action=submit` to the same path is
 * another shape). Undefined with a reason when it must not be learned: a value not from the case.
 */
export function learnedEntry(shape: RequestShape, kind: LearnableKind, fromCase: CaseCheck): { entry: RequestMapEntry } | { refused: string } {
  if (!MapMethod.safeParse(shape.method).success || shape.method === 'WEBSOCKET') return { refused: `a ${shape.method} request is not learned` };
  if (shape.graphql?.type === 'mutation' && kind === 'lookup') return { refused: 'a GraphQL mutation is not a look-up' };
  const values: Record<string, string[]> = {};
  for (const { name, value, file } of shape.pairs) {
    const key = name.toLowerCase();
    if (file) {
      if (!noFile(file) && !fromCase(value, file)) return { refused: `it carries the file “${file.file}” in “${name}”, which is not a case document, so it is not learned (sent once instead)` };
      continue;
    }
    if (isChoosing(key) || TICK_VALUES.has(value.toLowerCase())) {
      values[name] = [...new Set([...(values[name] ?? []), value])];
      continue;
    }
    if (value !== '' && !fromCase(value)) return { refused: `it carries “${name}” with a value not from the case, so it is not learned (sent once instead)` };
  }
  const path = shape.path.replace(/[^A-Za-z0-9._~/-]/gu, (c) => [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  const entry = RequestMapEntry.parse({
    method: shape.method,
    path,
    host: shape.host,
    kind,
    fields: [...new Set(shape.pairs.map((p) => p.name))].filter((n) => FieldName.safeParse(n).success),
    ...(Object.keys(values).length ? { values } : {}),
    ...(shape.graphql?.name ? { operation: shape.graphql.name } : {}),
  });
  return { entry };
}

/** A file box left empty: a multipart part with no file name and no bytes. */
function noFile(file: CarriedFile): boolean {
  return file.file === '' && file.bytes === 0;
}

/** One line for an entry: `POST /apply/owner (save; fields a, b; action=save)`. */
export function entryLine(entry: RequestMapEntry): string {
  const parts: string[] = [entry.kind];
  if (entry.operation) parts.push(`operation ${entry.operation}`);
  if (entry.fields) parts.push(entry.fields.length ? `fields ${entry.fields.join(', ')}` : 'no fields');
  for (const [name, values] of Object.entries(entry.values ?? {})) parts.push(`${name}=${values.join('|')}`);
  if (entry.pageFields?.length) parts.push(`page fields ${entry.pageFields.join(', ')}`);
  return `${entry.method} ${entry.host ? `${entry.host}` : ''}${entry.path} (${parts.join('; ')})`;
}
