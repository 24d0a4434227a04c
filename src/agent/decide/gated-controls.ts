import { riskyWordIn } from '../guard/rules/risky-words';
import type { Observation } from '../../shared/observation';

/** Roles a click acts on: the ones the risky-control rule gates by their name. */
const CLICKABLE = new Set(['button', 'link', 'menuitem', 'tab']);

/**
 * The observation as the planner is shown it: every control the guard will hold for the clerk
 * is marked `gated`, not only those the portal marks (data-agent-gate="human"). A click on a
 * control whose name holds one of the profile's risky words ("Submit application", "Pay now")
 * waits for approval, so the model is told so in the read. The guard itself reads the page,
 * never this copy.
 */
export function withGatedControls(observation: Observation, riskyWords: readonly string[]): Observation {
  let changed = false;
  const controls = observation.controls.map((control) => {
    if (control.gated || !CLICKABLE.has(control.role) || !riskyWordIn(control.name, riskyWords)) return control;
    changed = true;
    return { ...control, gated: true };
  });
  return changed ? { ...observation, controls } : observation;
}

/** Whether the read shows an enabled gated button: the model is about to decide a risky step. */
export function showsGatedButton(observation: Observation): boolean {
  return observation.controls.some((control) => control.gated && !control.disabled && control.role === 'button');
}
