import { describe, expect, it } from 'vitest';
import { ClientSlots } from '../../src/console/client-slots';
import { runBatch, type BatchEntry } from '../../src/service/batch';
import type { CaseFile } from '../../src/shared/case-file';

/**
 * How the console's queue schedules, without a browser: the batch machinery's own scheduler with
 * the console's client slots as its outside holds. Each case "runs" while its prepare step waits
 * for the test to let it go (then it is refused, which ends it), so the order and overlap of
 * starts are the scheduler's real decisions.
 */
function caseOf(caseId: string, clientId: string): CaseFile {
  return { caseId, clientId, portal: 'shops', task: 'renewal', fields: {} } as unknown as CaseFile;
}

function tick(): Promise<void> {
  return new Promise((r) => setTimeout(r, 5));
}

describe('the queue’s scheduling', () => {
  it('runs at most N at once, one per client, and a client held outside waits without taking a place', async () => {
    const slots = new ClientSlots();
    // The clerk's own run of client c holds its slot before the queue starts.
    expect(slots.tryClaim(ClientSlots.keyOf({ clientId: 'c', portal: 'shops' }), 'run-by-hand')).toBe(true);
    const entries: BatchEntry[] = [caseOf('a1', 'a'), caseOf('c1', 'c'), caseOf('a2', 'a'), caseOf('b1', 'b'), caseOf('d1', 'd')].map((caseFile) => ({ source: caseFile.caseId, caseFile }));
    const running = new Map<string, () => void>();
    const started: string[] = [];
    let most = 0;
    const batch = runBatch(entries, {
      concurrency: 2,
      services: {} as never,
      prepare: async (caseFile) => {
        const key = ClientSlots.keyOf(caseFile);
        expect(slots.tryClaim(key)).toBe(true);
        started.push(caseFile.caseId);
        most = Math.max(most, running.size + 1);
        const clients = [...running.keys()].map((id) => id[0]);
        expect(clients).not.toContain(caseFile.clientId);
        await new Promise<void>((go) => running.set(caseFile.caseId, go));
        running.delete(caseFile.caseId);
        slots.release(key);
        throw new Error('let go');
      },
      outside: { held: (caseFile) => slots.holder(ClientSlots.keyOf(caseFile)) !== undefined, onRelease: (listener) => slots.onRelease(listener) },
    });
    await tick();
    // c1 is skipped (its client is the clerk's), a2 waits for a1: a1 and b1 take the two places.
    expect(started).toEqual(['a1', 'b1']);
    running.get('a1')!();
    await tick();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    // The clerk's run ends: c1 is next when a place frees, not before.
    slots.release(ClientSlots.keyOf({ clientId: 'c', portal: 'shops' }));
    await tick();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    running.get('b1')!();
    await tick();
    expect(started).toEqual(['a1', 'b1', 'a2', 'c1']);
    running.get('a2')!();
    await tick();
    running.get('c1')!();
    await tick();
    running.get('d1')!();
    const outcomes = await batch;
    expect(started).toEqual(['a1', 'b1', 'a2', 'c1', 'd1']);
    expect(outcomes.map((o) => [o.source, o.status, o.reason])).toEqual(entries.map((e) => [e.source, 'invalid', 'let go']));
    expect(most).toBe(2);
  });

  it('a place freed by the clerk’s run alone starts the waiting case (nothing else in the queue moves)', async () => {
    const slots = new ClientSlots();
    const key = ClientSlots.keyOf({ clientId: 'c', portal: 'shops' });
    slots.tryClaim(key, 'run-by-hand');
    const started: string[] = [];
    const batch = runBatch([{ source: 'c1', caseFile: caseOf('c1', 'c') }], {
      concurrency: 3,
      services: {} as never,
      prepare: async (caseFile) => {
        started.push(caseFile.caseId);
        throw new Error('let go');
      },
      outside: { held: (caseFile) => slots.holder(ClientSlots.keyOf(caseFile)) !== undefined, onRelease: (listener) => slots.onRelease(listener) },
    });
    await tick();
    expect(started).toEqual([]);
    slots.release(key);
    await batch;
    expect(started).toEqual(['c1']);
  });
});
