import type { LabRequest } from '../http';
import { ATTACKER_PAGES } from './attacker-pages';

/**
 * Pages the "attacker" hosts serve (look-alike portals, the second stage of an attack). Attacks
 * on portal pages live in `catalogue/`; these are where they would lead. Every request to an
 * attacker host is counted whether or not a page answers it.
 */
export interface AttackPage {
  readonly id: string;
  /** Hostname it answers on (any non-lab host when omitted). */
  readonly host?: string;
  readonly path: string;
  readonly description: string;
  render(req: LabRequest, port: number): { status?: number; contentType?: string; body: string };
}

export const ATTACK_PAGES: readonly AttackPage[] = ATTACKER_PAGES;

export function findAttackPage(host: string, path: string, pages: readonly AttackPage[] = ATTACK_PAGES): AttackPage | undefined {
  return pages.find((p) => p.path === path && (p.host === undefined || p.host === host));
}
