import type { Page } from 'playwright-core';
import { submissionAt, submissionOfFocus } from '../agent/browser/input-target';
import type { ControlSubmission } from '../shared/control-submission';
import type { ClerkInputEvent } from '../shared/console-api';
import type { Store } from '../store';
import type { ClerkDesk } from './clerk-desk';

/** Keys whose KeyboardEvent.key name playwright spells otherwise. */
const KEY_NAMES: Record<string, string> = { ' ': 'Space', Esc: 'Escape', Left: 'ArrowLeft', Right: 'ArrowRight', Up: 'ArrowUp', Down: 'ArrowDown', Del: 'Delete' };

/** Keys that are never sent to the page: they would act on the browser, not on the portal. */
const BROWSER_KEYS = new Set(['F5', 'F11', 'F12']);

/**
 * The clerk's input from the browser console's live view, played into the run's own page
 * through playwright (CDP Input.* underneath): the same context, so the egress lock, the commit
 * gate, downloads off and the pop-up guard hold for the clerk's clicks as for the agent's.
 * Coordinates arrive as fractions of the picture; the screencast pictures the viewport.
 *
 * Before a press or a key that can activate a control (a mouse button going down, a click, Enter,
 * Space), `gesture` is told what the control there sends (read by the browser's hit test in a
 * world of ours, not the page's): a commit request is the clerk's own only when it is that.
 */
export function playClerkInput(page: Page, events: readonly ClerkInputEvent[], gesture: (controls: ControlSubmission[]) => void): Promise<void> {
  // Batches arrive as separate calls; each waits for the one before it, so a button's down and up
  // (sent apart, the down awaiting its read of the target) reach the page in the order given.
  const played = (playing.get(page) ?? Promise.resolve()).then(() => playInOrder(page, events, gesture));
  playing.set(page, played.catch(() => undefined));
  return played;
}

/** The last batch of each page's clerk input, which the next one waits for. */
const playing = new WeakMap<Page, Promise<void>>();

async function playInOrder(page: Page, events: readonly ClerkInputEvent[], gesture: (controls: ControlSubmission[]) => void): Promise<void> {
  const size = page.viewportSize() ?? (await page.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight })));
  const at = (e: { x: number; y: number }) => ({ x: Math.round(e.x * size.width), y: Math.round(e.y * size.height) });
  for (const event of events) {
    switch (event.type) {
      case 'mouse': {
        const { x, y } = at(event);
        if (event.action === 'down' || event.action === 'click') gesture(await pressedControls(page, { x, y }));
        if (event.action === 'move') await page.mouse.move(x, y);
        else if (event.action === 'down') {
          await page.mouse.move(x, y);
          await page.mouse.down({ button: event.button });
        } else if (event.action === 'up') {
          await page.mouse.move(x, y);
          await page.mouse.up({ button: event.button });
        } else await page.mouse.click(x, y, { button: event.button });
        break;
      }
      case 'wheel': {
        const { x, y } = at(event);
        await page.mouse.move(x, y);
        await page.mouse.wheel(event.deltaX, event.deltaY);
        break;
      }
      case 'key': {
        if (BROWSER_KEYS.has(event.key)) break;
        const key = KEY_NAMES[event.key] ?? event.key;
        if (key === 'Enter' || key === 'Space') gesture(await pressedControls(page, 'focus'));
        await page.keyboard.press([...event.modifiers, key].join('+'));
        break;
      }
      case 'text':
        await page.keyboard.insertText(event.text);
        break;
    }
  }
}

/**
 * What a clerk's press aims at: what the control at this point of the viewport (CSS pixels), or
 * the focused control for Enter and Space, sends (none: it sends nothing by itself). The live
 * view's forwarded input and the desktop shell's portal view both read their presses here.
 */
async function pressedControls(page: Page, at: { x: number; y: number } | 'focus'): Promise<ControlSubmission[]> {
  const control = at === 'focus' ? await submissionOfFocus(page) : await submissionAt(page, at);
  return control ? [control] : [];
}

/**
 * The console's side of a take-over: the clerk asks for a run's portal, and while they hold it
 * their input (the live view's forwarded events, the desktop shell's presses in its own portal
 * view) goes to the run's page; at any other time the agent is working it and input would race it.
 */
export class ClerkHands {
  constructor(
    private readonly desk: ClerkDesk,
    private readonly store: Store,
    /** The run live in the console (its page once it has one). */
    private readonly live: (runId: string) => { page?: Page } | undefined,
  ) {}

  /** The clerk clicks Take over: at once when the run waits for it, else before the live run's next read. */
  async take(runId: string): Promise<boolean> {
    const live = this.live(runId);
    const run = live ? await this.store.getRun(runId) : null;
    return this.desk.startTakeOver(runId, live && run ? { step: run.stepCount } : null);
  }

  /** The clerk holds the run's portal now. */
  holds(runId: string): boolean {
    return this.desk.isTakenOver(runId);
  }

  /** A press of theirs in the desktop shell's portal view, read for what it aims at (a commit request is theirs only through one). */
  press(runId: string, at: { x: number; y: number } | 'focus'): void {
    const page = this.live(runId)?.page;
    if (!page || !this.desk.isTakenOver(runId)) return;
    void pressedControls(page, at).then((controls) => this.desk.noteGesture(runId, controls));
  }

  /** The live view's input, played into the run's page; false unless the clerk holds it. */
  async play(runId: string, events: readonly ClerkInputEvent[]): Promise<boolean> {
    const page = this.live(runId)?.page;
    if (!page || !this.desk.isTakenOver(runId)) return false;
    await playClerkInput(page, events, (controls) => this.desk.noteGesture(runId, controls));
    return true;
  }
}
