import { type CredentialSource, type Credentials } from '../shared/credentials';

/**
 * Asks credential sources in order and answers with the first login found, e.g.
 * `new CredentialChain([vault, labAccounts])`. An error is not a miss: a vault entry that
 * fails to open stops the chain instead of quietly signing in with the next source's login.
 */
export class CredentialChain implements CredentialSource {
  constructor(private readonly sources: readonly CredentialSource[]) {}

  async get(clientId: string, portalId: string): Promise<Credentials | null> {
    for (const source of this.sources) {
      const found = await source.get(clientId, portalId);
      if (found) return found;
    }
    return null;
  }
}
