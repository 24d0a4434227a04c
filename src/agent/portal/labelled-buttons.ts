import type { Control } from '../../shared/observation';
import { normaliseLabel } from '../decide/rules/field-names';

/**
 * The page's enabled buttons the guard does not gate whose label (after normaliseLabel) matches one
 * of `patterns`, best pattern first: the candidates code presses by itself on an overlay (a
 * declining answer to a cookie banner, the keep-my-session button of a timeout warning), each then
 * checked to sit inside the overlay's dialog.
 */
export function labelledButtons(controls: readonly Control[], patterns: readonly RegExp[]): Control[] {
  return controls
    .filter((c) => c.role === 'button' && !c.disabled && !c.gated)
    .map((c) => ({ control: c, rank: patterns.findIndex((p) => p.test(normaliseLabel(c.name))) }))
    .filter((c) => c.rank >= 0)
    .sort((a, b) => a.rank - b.rank)
    .map((c) => c.control);
}
