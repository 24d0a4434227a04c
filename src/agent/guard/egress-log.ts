import type { RequestEntry } from '../../shared/request-log';

/** Distinct entries kept for one step; past this, requests are counted per host and outcome. */
const MAX_ENTRIES = 200;
/** The path an entry gets when it stands for requests past `MAX_ENTRIES`. */
const MORE = '(more requests, counted together)';

type Seen = Omit<RequestEntry, 'count' | 'firstAt' | 'lastAt'>;

/**
 * The egress lock's request log for the step being taken: every request it let through or
 * refused, as data, identical ones counted in one entry (a page's fifty identical image loads
 * are one line with count 50, not fifty rows). The loop takes the entries when it records the
 * step; the log then starts again for the next one.
 */
export class EgressLog {
  private entries = new Map<string, RequestEntry>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  add(seen: Seen): void {
    const at = this.now().toISOString();
    let key = keyOf(seen);
    let entry = this.entries.get(key);
    if (!entry && this.entries.size >= MAX_ENTRIES) {
      const folded: Seen = { kind: seen.kind, method: '*', host: seen.host, port: seen.port, path: MORE, outcome: seen.outcome, rule: seen.rule };
      key = keyOf(folded);
      entry = this.entries.get(key);
      seen = folded;
    }
    if (entry) {
      entry.count += 1;
      entry.lastAt = at;
      return;
    }
    this.entries.set(key, { ...withoutUndefined(seen), count: 1, firstAt: at, lastAt: at });
  }

  /** The entries since the last call, in the order each was first seen. */
  take(): RequestEntry[] {
    const out = [...this.entries.values()];
    this.entries = new Map();
    return out;
  }
}

function keyOf(s: Seen): string {
  return JSON.stringify([s.outcome, s.kind, s.method, s.host, s.port, s.path, s.rule, s.reason ?? null]);
}

function withoutUndefined(s: Seen): Seen {
  const { reason, ...rest } = s;
  return reason === undefined ? rest : { ...rest, reason };
}
