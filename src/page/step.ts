import type { DomStep } from './facts';
import { attr, clean, textOf } from './text';

/** Where the user is in a multi-step flow: the visible aria-current="step" item and its place in its list, and a progress bar's text. */
export function flowStep(doc: Document): DomStep {
  const step: DomStep = {};
  const current = Array.from(doc.querySelectorAll('[aria-current="step" i]')).find((e) => e.checkVisibility());
  if (current) {
    step.current = textOf(current, 120);
    const item = current.closest('li,[role=listitem]') ?? current;
    const list = item.parentElement;
    if (list) {
      const siblings = Array.from(list.children).filter((c) => c.checkVisibility());
      const at = siblings.indexOf(item);
      if (at >= 0 && siblings.length > 1) {
        step.index = at + 1;
        step.count = siblings.length;
      }
    }
  }
  const progress = Array.from(doc.querySelectorAll('[role=progressbar][aria-valuetext],progress[aria-valuetext]')).find((e) => e.checkVisibility());
  if (progress) step.valueText = clean(attr(progress, 'aria-valuetext'), 120);
  return step;
}
