import { PortalDeskError } from '../base/portal-desk-error';

/**
 * Why the vault refused. Messages name the file, the client and the portal, never a username's
 * password or a key.
 */
export type VaultProblem =
  | 'bad-id' // a client or portal id the vault does not accept
  | 'bad-input' // a value to store that cannot be stored (empty password, login state that is not JSON)
  | 'key-file' // the key file is missing its protection, has the wrong size, or cannot be made
  | 'key-missing' // the vault has a key, but its key file is not there (restore it; never replaced by a new one)
  | 'keyring' // the OS keyring (secret-tool) did not answer or holds something unusable
  | 'wrong-key' // a record or the vault was sealed with another key
  | 'tampered' // a record failed its integrity check
  | 'misplaced' // a record sits in the file of another client or portal
  | 'damaged' // a file the vault wrote can no longer be parsed
  | 'not-a-folder'; // the vault's path is a file, a link or a device, not a folder

/** The vault refused; nothing was read or written. */
export class VaultError extends PortalDeskError {
  constructor(
    readonly problem: VaultProblem,
    message: string,
  ) {
    super(message);
  }
}
