/**
 * The clerk's hands and the portal view. In the desktop shell the portal is a real view in the
 * console window: without a lock the clerk's mouse and keyboard would reach the page while the
 * agent works it, racing the agent's actions and sending requests no approval covers. So:
 *
 * - While the agent has the portal, a transparent shield view lies over the portal view: the
 *   window's hit test gives every mouse event to the shield, never to the page, and a click on it
 *   takes the keyboard focus with it. The engine's own input goes to the page over the DevTools
 *   protocol, not through the window, so the shield never stands in its way.
 * - While the clerk holds the run's portal (a take-over), the shield is off and the clerk works
 *   the page itself. Each press and each Enter or Space is passed on (`ClerkHands.press`) to be
 *   read for the addresses its control names, as the browser console's forwarded input is: a
 *   commit request is the clerk's own only through such a gesture (src/shared/clerk-gestures.ts).
 *
 * No Electron import: `src/main/portal-views.ts` passes the real views, tests pass stand-ins.
 */

/** Where the portal view's input goes: the console service's take-over desk. */
export interface ClerkHands {
  /** The clerk holds this run's portal now (a take-over is active). */
  holds(runId: string): boolean;
  /** A press at this point of the view (CSS pixels), or Enter/Space on the focused control. */
  press(runId: string, at: { x: number; y: number } | 'focus'): void;
}

/** The events of a portal view's `webContents` the lock listens to (observed, never prevented). */
export interface PortalInput {
  on(event: 'before-mouse-event', listener: (event: unknown, mouse: { type: string; x: number; y: number }) => void): unknown;
  on(event: 'before-input-event', listener: (event: unknown, input: { type: string; key: string }) => void): unknown;
}

/** True when the shield must lie over the shown portal view: unless its run is in the clerk's hands. */
export function shieldShown(shownRunId: string | undefined, hands: ClerkHands): boolean {
  return !shownRunId || !hands.holds(shownRunId);
}

/**
 * Passes the clerk's presses in a portal view on while they hold its run (`runId()`: the view's
 * run, known once its start has bound it). Nothing is passed while the agent has the portal: the
 * shield keeps the clerk's input away then, and what the engine dispatches is not the clerk's.
 */
export function watchClerkPresses(input: PortalInput, runId: () => string | undefined, hands: ClerkHands): void {
  input.on('before-mouse-event', (_event, mouse) => {
    const run = runId();
    if (run && mouse.type === 'mouseDown' && hands.holds(run)) hands.press(run, { x: mouse.x, y: mouse.y });
  });
  input.on('before-input-event', (_event, key) => {
    const run = runId();
    if (run && key.type === 'keyDown' && (key.key === 'Enter' || key.key === ' ') && hands.holds(run)) hands.press(run, 'focus');
  });
}
