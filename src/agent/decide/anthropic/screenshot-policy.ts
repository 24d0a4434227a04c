import type { Observation } from '../../../shared/observation';
import type { StepAction } from '../../../shared/run';
import { showsGatedButton } from '../gated-controls';

/**
 * When a screenshot goes up with a page read (it costs ~1,600 input tokens, so never by default):
 * - `gated_action`: the read shows an enabled gated button (Submit, Pay…), so the model sees
 *   what the clerk will see before it proposes the risky step (not after it ran: a screenshot
 *   of the confirmation page decides nothing);
 * - `unnamed_controls`: the read has controls without any name, which only the picture explains,
 *   unless the last screenshot sent showed this same page (address and unnamed count): a page
 *   with a nameless icon link would otherwise bring a ~1,500-token picture with every turn;
 * - `model_request`: the model set `want_screenshot` in its previous `act_on_page` call.
 * The first reason that applies is recorded as `ModelCall.imageReason`.
 */
type ScreenshotReason = 'gated_action' | 'unnamed_controls' | 'model_request';

interface ScreenshotContext {
  observation: Observation;
  previous: StepAction[];
  /** The model asked for a screenshot with this read. */
  modelAsked: boolean;
  /** The page the last screenshot sent showed (its address and unnamed controls), if any. */
  lastPicture?: { url: string; unnamedControls: number } | null;
}

export function screenshotReason({ observation, modelAsked, lastPicture }: ScreenshotContext): ScreenshotReason | null {
  if (showsGatedButton(observation)) return 'gated_action';
  const seen = lastPicture?.url === observation.url && lastPicture.unnamedControls === observation.unnamedControls;
  if (observation.unnamedControls > 0 && !seen) return 'unnamed_controls';
  if (modelAsked) return 'model_request';
  return null;
}
