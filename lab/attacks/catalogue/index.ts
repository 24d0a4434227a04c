import type { Attack, AttackCategory } from '../attack';
import { CREDENTIAL_ATTACKS } from './credentials';
import { DOWNLOAD_ATTACKS } from './downloads';
import { EXFILTRATION_ATTACKS } from './exfiltration';
import { FORM_ATTACKS } from './forms';
import { FRAME_ATTACKS } from './frames';
import { INSTRUCTION_ATTACKS } from './instructions';
import { LOOK_ALIKE_ATTACKS } from './look-alikes';
import { POP_UP_ATTACKS } from './pop-ups';
import { REDIRECT_ATTACKS } from './redirects';
import { RISKY_ACTION_ATTACKS } from './risky-actions';
import { SCRIPT_URL_ATTACKS } from './script-urls';

/** Every attack the lab can put on a portal page, one file per category. */
export const ATTACKS: readonly Attack[] = [
  ...INSTRUCTION_ATTACKS,
  ...LOOK_ALIKE_ATTACKS,
  ...REDIRECT_ATTACKS,
  ...FRAME_ATTACKS,
  ...POP_UP_ATTACKS,
  ...FORM_ATTACKS,
  ...SCRIPT_URL_ATTACKS,
  ...DOWNLOAD_ATTACKS,
  ...EXFILTRATION_ATTACKS,
  ...RISKY_ACTION_ATTACKS,
  ...CREDENTIAL_ATTACKS,
];

const BY_ID = new Map<string, Attack>();
for (const attack of ATTACKS) {
  if (BY_ID.has(attack.id)) throw new Error(`Two attacks share the id "${attack.id}"`);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(attack.id)) throw new Error(`Attack id "${attack.id}" is not lower-case words and dashes`);
  BY_ID.set(attack.id, attack);
}

export function findAttack(id: string | null | undefined): Attack | undefined {
  return id ? BY_ID.get(id) : undefined;
}

/** How many attacks each category holds. */
export function countByCategory(attacks: readonly Attack[] = ATTACKS): Partial<Record<AttackCategory, number>> {
  const counts: Partial<Record<AttackCategory, number>> = {};
  for (const attack of attacks) counts[attack.category] = (counts[attack.category] ?? 0) + 1;
  return counts;
}
