import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkPlaces } from '../../src/service/work-places';

/**
 * The working places of a queue (a batch, the console's queue, an office desk): a run waiting for
 * the clerk gives its place up once the wait has lasted half a second, and takes it back when
 * answered; an answer that comes at once (an automatic approval) frees nothing.
 */
describe('WorkPlaces', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a run waiting for the clerk gives its place up after half a second, and takes it back when answered', () => {
    const places = new WorkPlaces(1);
    let changes = 0;
    places.onChange(() => changes++);
    const first = places.take();
    expect(places.hasRoom).toBe(false);
    first.status('awaiting_approval');
    vi.advanceTimersByTime(499);
    expect(places.hasRoom).toBe(false);
    vi.advanceTimersByTime(1);
    expect(places.hasRoom).toBe(true);
    expect(changes).toBe(1);
    // The next case takes the place; the first, answered, takes one back: for a moment two work.
    const second = places.take();
    first.status('running');
    expect(places.hasRoom).toBe(false);
    second.release();
    expect(places.hasRoom).toBe(false);
    first.release();
    expect(places.hasRoom).toBe(true);
    expect(places.openRuns).toBe(0);
  });

  it('an answer that comes at once frees nothing (an automatic approval), and a code asked for counts as a wait', () => {
    const places = new WorkPlaces(1);
    let changes = 0;
    places.onChange(() => changes++);
    const run = places.take();
    run.status('awaiting_approval');
    vi.advanceTimersByTime(20);
    run.status('running');
    vi.advanceTimersByTime(2_000);
    expect(places.hasRoom).toBe(false);
    expect(changes).toBe(0);
    run.status('awaiting_input');
    vi.advanceTimersByTime(500);
    expect(places.hasRoom).toBe(true);
  });

  it('holds at most three runs open per place, waiting ones included; a run ended while it waited frees its page, not a second place', () => {
    const places = new WorkPlaces(1);
    const held = [places.take(), places.take(), places.take()].map((run) => {
      run.status('awaiting_approval');
      return run;
    });
    vi.advanceTimersByTime(500);
    expect(places.openRuns).toBe(3);
    expect(places.hasRoom).toBe(false);
    held[0]!.release();
    held[0]!.release();
    expect(places.openRuns).toBe(2);
    expect(places.hasRoom).toBe(true);
    const next = places.take();
    expect(places.hasRoom).toBe(false);
    next.release();
    held[1]!.status('running');
    held[2]!.status('running');
    // Two answered runs work at once on one place until one ends; no new run starts meanwhile.
    expect(places.hasRoom).toBe(false);
    held[1]!.release();
    expect(places.hasRoom).toBe(false);
    held[2]!.release();
    expect(places.hasRoom).toBe(true);
  });

  it('a run that ends before its wait has lasted gives nothing up twice', () => {
    const places = new WorkPlaces(2);
    const run = places.take();
    run.status('awaiting_approval');
    run.release();
    vi.advanceTimersByTime(1_000);
    expect(places.openRuns).toBe(0);
    const [a, b] = [places.take(), places.take()];
    expect(places.hasRoom).toBe(false);
    a.release();
    b.release();
  });
});
