import { openVault, VaultError, type OpenedVault } from '../vault';
import { UsageError } from './cli-error';

/**
 * The vault for a command that runs cases (run, resume, batch): a vault that cannot be used (its
 * key file missing, unprotected, the keyring unreachable) stops the command before anything runs,
 * in one line with exit 2, instead of failing at the first sign-in.
 */
export async function openCommandVault(): Promise<OpenedVault> {
  try {
    return await openVault();
  } catch (err) {
    if (err instanceof VaultError) throw new UsageError(err.message);
    throw err;
  }
}
