import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { shieldShown, watchClerkPresses, type ClerkHands, type PortalInput } from '../../src/main/portal-input-lock';

/**
 * The desktop shell's portal view and the clerk's hands, against stand-ins (no Electron binary
 * here): the shield lies over the view unless the clerk holds its run; while they hold it, each
 * press and each Enter or Space is passed on to be read for what it aims at, and nothing else is;
 * while the agent has it, nothing the view sees is passed on as the clerk's.
 */
class StandInHands implements ClerkHands {
  readonly held = new Set<string>();
  readonly presses: { runId: string; at: { x: number; y: number } | 'focus' }[] = [];
  holds(runId: string): boolean {
    return this.held.has(runId);
  }
  press(runId: string, at: { x: number; y: number } | 'focus'): void {
    this.presses.push({ runId, at });
  }
}

function standInView(): EventEmitter & PortalInput {
  return new EventEmitter() as EventEmitter & PortalInput;
}

describe('the portal view’s input lock', () => {
  it('shows the shield unless the shown view’s run is in the clerk’s hands', () => {
    const hands = new StandInHands();
    expect(shieldShown(undefined, hands)).toBe(true);
    expect(shieldShown('run-1', hands)).toBe(true);
    hands.held.add('run-1');
    expect(shieldShown('run-1', hands)).toBe(false);
    expect(shieldShown('run-2', hands)).toBe(true);
  });

  it('passes on the clerk’s presses and Enter/Space only while they hold the run', () => {
    const hands = new StandInHands();
    const view = standInView();
    const bound: { runId?: string } = {};
    watchClerkPresses(view, () => bound.runId, hands);

    // Not yet bound to a run, then bound but the agent has it: nothing is the clerk's.
    view.emit('before-mouse-event', {}, { type: 'mouseDown', x: 10, y: 20 });
    bound.runId = 'run-1';
    view.emit('before-mouse-event', {}, { type: 'mouseDown', x: 10, y: 20 });
    view.emit('before-input-event', {}, { type: 'keyDown', key: 'Enter' });
    expect(hands.presses).toEqual([]);

    hands.held.add('run-1');
    view.emit('before-mouse-event', {}, { type: 'mouseMove', x: 11, y: 21 });
    view.emit('before-mouse-event', {}, { type: 'mouseUp', x: 11, y: 21 });
    view.emit('before-mouse-event', {}, { type: 'mouseDown', x: 300, y: 140 });
    view.emit('before-input-event', {}, { type: 'keyUp', key: 'Enter' });
    view.emit('before-input-event', {}, { type: 'keyDown', key: 'a' });
    view.emit('before-input-event', {}, { type: 'keyDown', key: 'Enter' });
    view.emit('before-input-event', {}, { type: 'keyDown', key: ' ' });
    expect(hands.presses).toEqual([
      { runId: 'run-1', at: { x: 300, y: 140 } },
      { runId: 'run-1', at: 'focus' },
      { runId: 'run-1', at: 'focus' },
    ]);

    // Handed back: the agent has the portal again.
    hands.held.delete('run-1');
    view.emit('before-mouse-event', {}, { type: 'mouseDown', x: 300, y: 140 });
    expect(hands.presses).toHaveLength(3);
  });
});
