import { useEffect, useRef, type KeyboardEvent, type MouseEvent, type WheelEvent } from 'react';
import type { ClerkInputEvent } from '../../../shared/console-api';
import type { StepRecord } from '../../../shared/run';
import { StepScreenshot } from './screenshot';

const MOVE_EVERY_MS = 80;

/**
 * The portal as the agent sees it: the run's screencast. While the clerk has the portal (a
 * take-over), the picture takes their mouse, keyboard and scroll and sends them to the page, in
 * the run's own guarded session; otherwise it only shows.
 */
export function LivePortal({
  frame,
  lastStep,
  live,
  takenOver,
  onInput,
}: {
  frame: string | undefined;
  lastStep: StepRecord | undefined;
  live: boolean;
  takenOver: boolean;
  onInput: (events: ClerkInputEvent[]) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const lastMove = useRef(0);
  const buttonDown = useRef(false);

  useEffect(() => {
    if (takenOver) box.current?.focus();
  }, [takenOver]);

  if (!frame) {
    if (lastStep) return <StepScreenshot hash={lastStep.screenshotHash} alt="The portal at the last step" size="large" />;
    return <div className="live-frame live-empty">{live ? 'Waiting for the first picture of the portal…' : 'No picture of this run.'}</div>;
  }

  const where = (e: MouseEvent | WheelEvent): { x: number; y: number } => {
    const img = (e.currentTarget as HTMLElement).querySelector('img');
    const rect = (img ?? e.currentTarget).getBoundingClientRect();
    return { x: clamp((e.clientX - rect.left) / rect.width), y: clamp((e.clientY - rect.top) / rect.height) };
  };
  const button = (e: MouseEvent): 'left' | 'middle' | 'right' => (e.button === 1 ? 'middle' : e.button === 2 ? 'right' : 'left');

  const handlers = takenOver
    ? {
        onMouseDown: (e: MouseEvent) => {
          e.preventDefault();
          box.current?.focus();
          buttonDown.current = true;
          onInput([{ type: 'mouse', action: 'down', ...where(e), button: button(e) }]);
        },
        onMouseUp: (e: MouseEvent) => {
          e.preventDefault();
          buttonDown.current = false;
          onInput([{ type: 'mouse', action: 'up', ...where(e), button: button(e) }]);
        },
        onMouseMove: (e: MouseEvent) => {
          // Moves matter for drags and hover menus; a few a second are enough.
          const now = Date.now();
          if (now - lastMove.current < MOVE_EVERY_MS) return;
          lastMove.current = now;
          if (buttonDown.current) onInput([{ type: 'mouse', action: 'move', ...where(e), button: 'left' }]);
        },
        onContextMenu: (e: MouseEvent) => e.preventDefault(),
        onWheel: (e: WheelEvent) => {
          onInput([{ type: 'wheel', ...where(e), deltaX: e.deltaX, deltaY: e.deltaY }]);
        },
        onKeyDown: (e: KeyboardEvent) => {
          if (e.key === 'Escape' && e.shiftKey) return; // Shift+Esc leaves the portal (focus goes back to the console).
          e.preventDefault();
          const modifiers = (['Alt', 'Control', 'Meta', 'Shift'] as const).filter((m) => e.getModifierState(m));
          if (['Alt', 'Control', 'Meta', 'Shift', 'CapsLock'].includes(e.key)) return;
          if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) onInput([{ type: 'text', text: e.key }]);
          else onInput([{ type: 'key', key: e.key, modifiers }]);
        },
      }
    : {};

  return (
    <div
      ref={box}
      className={`live-box${takenOver ? ' live-taken' : ''}`}
      tabIndex={takenOver ? 0 : -1}
      role={takenOver ? 'application' : undefined}
      aria-label={takenOver ? 'The portal, yours to work: mouse, keyboard and scroll go to the page' : undefined}
      {...handlers}
    >
      <img className="live-frame" draggable={false} src={`data:image/jpeg;base64,${frame}`} alt={live ? 'The portal page now' : 'The portal page at the end'} />
    </div>
  );
}

function clamp(n: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0));
}
