import { backToStartHandler } from './back-to-start';
import { botCheckHandler } from './bot-check';
import { draftCheckpointHandler } from './draft-checkpoint';
import { earlierSubmissionHandler } from './earlier-submission';
import { interruptionHandler } from './interruption';
import { loginStateHandler } from './login-state';
import { newTabHandler } from './new-tab';
import { oneTimeCodeHandler } from './one-time-code';
import type { PortalHandler } from './portal-handler';
import { portalOutageHandler } from './portal-outage';
import { receiptHandler } from './receipt';
import { sessionTimeoutHandler } from './session-timeout';
import { signInHandler } from './sign-in';
import { takeOverHandler } from './take-over';

export type { PortalTurn } from './portal-handler';

/**
 * The portal realities code handles before the model is asked, in the order they look at each
 * read. The first handler that does not pass decides the step; when all pass, the planner is asked.
 * Adding one: a file beside these exporting a `PortalHandler`, and its line here.
 */
export const PORTAL_HANDLERS: readonly PortalHandler[] = [
  portalOutageHandler,
  takeOverHandler,
  newTabHandler,
  botCheckHandler,
  interruptionHandler,
  sessionTimeoutHandler,
  signInHandler,
  oneTimeCodeHandler,
  loginStateHandler,
  backToStartHandler,
  receiptHandler,
  earlierSubmissionHandler,
  draftCheckpointHandler,
];
