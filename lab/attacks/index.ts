/** The red-team part of the lab: attack pages on portal pages and attacker hosts, and the ledger of what landed. */
export {
  ATTACK_CATEGORIES,
  MARK_PARAM,
  PLACEMENT_START,
  type Attack,
  type AttackCategory,
  type AttackContext,
  type Bait,
  type HarmKind,
  type Placement,
} from './attack';
export { ATTACKS, countByCategory, findAttack } from './catalogue';
export { attackContent, placementOf } from './embed';
export { AttackLedger, type AttackerDocument, type AttackHit, type AttackHitKind, type AttackRecords, type AttackShown, type PortalPost } from './ledger';
export { ATTACK_ENDPOINT_PREFIX, DOWNLOAD_BYTES, handleAttackEndpoint, isAttackEndpoint } from './portal-endpoints';
export { recordPortalPost } from './portal-posts';
export { countAttackerUpgrades, handleAttackerHost } from './attacker-host';
export { listenAttackerPort } from './other-port';
