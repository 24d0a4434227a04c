import { z } from 'zod';

/**
 * What the egress lock (the run's own proxy, below every document) let through and refused in
 * one step, as data: one entry per distinct request, repeats counted. A step keeps these in its
 * chained record (`StepRecord.requests`, with `requestsSha256` so verify can name the field when
 * one is edited); the requests pane of the report and the console's replay reads them
 * (src/shared/step-log.ts).
 *
 * Plain http requests are seen whole (method, host, port, path); a tunnel (CONNECT, which the
 * browser uses for https and secure sockets) shows the lock only its host and port, so its
 * requests inside are not listed one by one. Query values never reach the record: `?q=…&page=…`.
 */
export const RequestEntry = z.object({
  /**
   * `http`: a plain request, seen whole; `https`: a request inside a tunnel whose TLS the lock
   * ended, seen whole; `tunnel`: a CONNECT (https, wss); `upgrade`: a WebSocket opening.
   */
  kind: z.enum(['http', 'https', 'tunnel', 'upgrade']),
  method: z.string(),
  host: z.string(),
  /** Null when the request named no port that reads as one. */
  port: z.number().int().nonnegative().nullable(),
  /** The path with query values redacted; null for a tunnel. */
  path: z.string().nullable(),
  outcome: z.enum(['sent', 'refused']),
  /** The deciding rule: `egress-lock:portal-hosts`, `egress-lock:resolver`, `egress-lock:upgrade`. */
  rule: z.string(),
  /** Why it was refused, as the lock said it. */
  reason: z.string().optional(),
  /** How many identical requests this entry stands for. */
  count: z.number().int().positive(),
  firstAt: z.string(),
  lastAt: z.string(),
});
export type RequestEntry = z.infer<typeof RequestEntry>;

/** The words every refusal line of the egress lock carries, so a step's pane can tell its lines from the network lock's. */
export const EGRESS_LOCK_WORDS = 'at the egress lock';

/** Longest path kept in an entry. */
const MAX_PATH = 200;

/** `/search?q=anand&page=2` → `/search?q=…&page=…`: the names of the query's parameters, never their values. */
export function pathWithoutQueryValues(pathAndQuery: string): string {
  const hash = pathAndQuery.indexOf('#');
  const noFragment = hash >= 0 ? pathAndQuery.slice(0, hash) : pathAndQuery;
  const q = noFragment.indexOf('?');
  const path = q >= 0 ? noFragment.slice(0, q) : noFragment;
  const query = q >= 0 ? noFragment.slice(q + 1) : '';
  const names = query
    .split('&')
    .filter((part) => part.length > 0)
    .map((part) => `${part.split('=')[0]!}=…`);
  const out = names.length ? `${path}?${names.join('&')}` : q >= 0 ? `${path}?` : path;
  return out.length <= MAX_PATH ? out : `${out.slice(0, MAX_PATH - 1)}…`;
}

/** How an entry's request reads in a pane: `GET http://shops.example/apply?x=…`, `CONNECT tracker.example:443`. */
export function requestAddress(e: Pick<RequestEntry, 'kind' | 'host' | 'port' | 'path'>): string {
  const host = e.host.includes(':') && !e.host.startsWith('[') ? `[${e.host}]` : e.host;
  if (e.kind === 'tunnel') return e.port === null ? host : `${host}:${e.port}`;
  const port = e.port === null || e.port === 80 ? '' : `:${e.port}`;
  if (e.kind === 'https') return `https://${host}${e.port === null || e.port === 443 ? '' : `:${e.port}`}${e.path ?? ''}`;
  return `${e.kind === 'upgrade' ? 'ws' : 'http'}://${host}${port}${e.path ?? ''}`;
}
