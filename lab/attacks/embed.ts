import { html, type Html } from '../html';
import { PORTAL_HOSTS, type PortalId } from '../hosts';
import type { LabState } from '../state';
import type { Attack, AttackContext, Placement } from './attack';
import { findAttack } from './catalogue';

/** The portal page a request shows, as far as attacks are concerned. */
export function placementOf(path: string): Placement | null {
  if (path === '/') return 'dashboard';
  if (path === '/applications') return 'applications';
  const section = /^\/apply\/([a-z0-9-]+)$/.exec(path);
  if (section && !['review', 'start', 'continue', 'submit'].includes(section[1]!)) return 'section';
  return null;
}

export function attackContext(state: LabState, attack: Attack, portal: PortalId, clientId: string | null): AttackContext {
  return { attack, portal, portalHost: PORTAL_HOSTS[portal], port: state.port, attackerPort: state.attackerPort, clientId };
}

/**
 * The attack content a portal page carries for this client's variant (`attack: <id>`), or
 * nothing: only pages of the attack's placement carry it, and only signed-in pages (the
 * variant belongs to a client). Each page that carries it is recorded as shown.
 */
export function attackContent(state: LabState, request: { portal: PortalId; path: string; attack: string | null; clientId: string | null }): Html {
  const attack = findAttack(request.attack);
  if (!attack || !request.clientId || placementOf(request.path) !== attack.placement) return html``;
  state.attacks.recordShown({ at: new Date(state.now()).toISOString(), attack: attack.id, clientId: request.clientId, portal: request.portal, path: request.path });
  return html`<div class="lab-attack-content" data-lab-attack="${attack.id}">${attack.content(attackContext(state, attack, request.portal, request.clientId))}</div>`;
}
