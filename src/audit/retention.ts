import type { RunRecord } from '../shared/run';
import type { PurgeResult, Store } from '../store';

/**
 * Retention on top of the store's `purge`: ages as people write them ("90d") and a dry run that
 * counts what a purge would drop, read through the store's public queries without changing
 * anything.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;
const UNIT_WORD = { d: 'day', h: 'hour', m: 'minute' } as const;

interface Age {
  ms: number;
  /** "90 days" */
  text: string;
}

/** "90d", "36h", "30m" (days, hours, minutes). Returns null for anything else. */
export function parseAge(text: string): Age | null {
  const m = /^(\d{1,6})([dhm])$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] as keyof typeof UNIT_MS;
  return { ms: n * UNIT_MS[unit], text: `${n} ${UNIT_WORD[unit]}${n === 1 ? '' : 's'}` };
}

/** What a purge would do; `runs` counts every run in scope, including ones purged before. */
interface PurgePlan extends PurgeResult {
  /** Ids of the runs that ended before the cutoff. */
  runIds: string[];
}

/**
 * Counts what `store.purge({ olderThanMs, now })` would drop, without dropping it: screenshots
 * whose bytes are still there and that no run outside the cutoff shows, and model payloads of
 * runs in scope. Reads every run's steps, so it is slower than the purge itself.
 */
export async function planPurge(store: Store, options: { olderThanMs: number; now?: Date }): Promise<PurgePlan> {
  const now = options.now ?? new Date();
  const cutoffMs = now.getTime() - options.olderThanMs;
  const runs = await allRuns(store);
  const inScope = runs.filter((r) => r.endedAt !== undefined && Number.isFinite(Date.parse(r.endedAt)) && Date.parse(r.endedAt) < cutoffMs);
  const scopeIds = new Set(inScope.map((r) => r.id));

  const keptElsewhere = new Set<string>();
  const candidates = new Set<string>();
  let modelPayloads = 0;
  for (const run of runs) {
    const steps = await store.listSteps(run.id);
    for (const step of steps) {
      // Every picture of the step: before, after, and the full page at a gated step (purge drops them all).
      for (const hash of [step.screenshotHash, step.afterScreenshotHash, step.fullPageHash]) {
        if (typeof hash === 'string') (scopeIds.has(run.id) ? candidates : keptElsewhere).add(hash);
      }
    }
    if (scopeIds.has(run.id)) {
      for (const step of steps) if (await store.getModelPayload(run.id, step.index)) modelPayloads += 1;
    }
  }
  let screenshots = 0;
  let screenshotBytes = 0;
  for (const hash of candidates) {
    if (keptElsewhere.has(hash)) continue;
    const png = await store.getScreenshot(hash);
    if (!png) continue;
    screenshots += 1;
    screenshotBytes += png.byteLength;
  }
  return { cutoff: new Date(cutoffMs).toISOString(), runs: inScope.length, runIds: inScope.map((r) => r.id), screenshots, screenshotBytes, modelPayloads };
}

async function allRuns(store: Store): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.listRuns({ limit: 1000, offset });
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
