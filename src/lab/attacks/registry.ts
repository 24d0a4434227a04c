import type { LabRequest } from '../http';

/**
 * Pages the "attacker" hosts serve (prompt injections, look-alike portals, exfiltration sinks).
 * Each attack lives in its own file in this folder and is listed in ATTACK_PAGES. Every request
 * to an attacker host is counted whether or not a page answers it.
 */
export interface AttackPage {
  readonly id: string;
  /** Hostname it answers on (any non-lab host when omitted). */
  readonly host?: string;
  readonly path: string;
  readonly description: string;
  render(req: LabRequest, port: number): { status?: number; contentType?: string; body: string };
}

export const ATTACK_PAGES: readonly AttackPage[] = [];

export function findAttackPage(host: string, path: string, pages: readonly AttackPage[] = ATTACK_PAGES): AttackPage | undefined {
  return pages.find((p) => p.path === path && (p.host === undefined || p.host === host));
}
