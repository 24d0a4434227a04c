import type { Observation } from '../../../shared/observation';
import type { StepAction } from '../../../shared/run';

/**
 * When a screenshot goes up with a page read (it costs ~1,600 input tokens, so never by default):
 * - `gated_action`: the previous turn had an action waiting for the clerk's approval
 *   (`needs_approval`), so the model sees what the clerk sees before the risky step;
 * - `unnamed_controls`: the read has controls without any name, which only the picture explains;
 * - `model_request`: the model set `want_screenshot` in its previous `act_on_page` call.
 * The first reason that applies is recorded as `ModelCall.imageReason`.
 */
export type ScreenshotReason = 'gated_action' | 'unnamed_controls' | 'model_request';

export interface ScreenshotContext {
  observation: Observation;
  previous: StepAction[];
  /** The model asked for a screenshot with this read. */
  modelAsked: boolean;
}

export function screenshotReason({ observation, previous, modelAsked }: ScreenshotContext): ScreenshotReason | null {
  if (previous.some((step) => step.outcome.status === 'needs_approval' || step.verdict.verdict === 'needs_approval')) return 'gated_action';
  if (observation.unnamedControls > 0) return 'unnamed_controls';
  if (modelAsked) return 'model_request';
  return null;
}
