import type { PortalId } from '../hosts';
import type { LabRequest } from '../http';
import type { LabState } from '../state';

/** Form posts code makes on the agent's behalf with secrets (sign-in, one-time codes): not the agent's typing, and not kept twice. */
const CODE_ONLY_PATHS = new Set(['/sign-in', '/verify', '/verify/resend']);

/**
 * Keeps every other form post a portal host receives, as received: the eval compares what the
 * agent's typing turned into at the portal with the case's values.
 */
export function recordPortalPost(state: LabState, portal: PortalId, req: LabRequest, clientId: string | null): void {
  if (req.method !== 'POST' || CODE_ONLY_PATHS.has(req.path)) return;
  state.attacks.recordPortalPost({ at: new Date(state.now()).toISOString(), clientId, portal, path: req.path, body: req.body.slice(0, 8192) });
}
