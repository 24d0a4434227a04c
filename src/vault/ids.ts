import { VaultError } from './vault-error';

/** Client and portal ids as case files and portal profiles spell them. */
const ID = /^[A-Za-z0-9._-]{1,80}$/;

/** Refuses an id the vault does not accept; the message shows what is allowed. */
export function checkIds(clientId: string, portalId: string): void {
  for (const [what, id] of [['client', clientId], ['portal', portalId]] as const) {
    if (typeof id !== 'string' || !ID.test(id)) {
      throw new VaultError('bad-id', `"${String(id).slice(0, 100)}" is not a ${what} id (1 to 80 letters, digits, dots, dashes or underscores)`);
    }
  }
}

/** How messages name one entry. */
export function entryName(clientId: string, portalId: string): string {
  return `client "${clientId}" on portal "${portalId}"`;
}
