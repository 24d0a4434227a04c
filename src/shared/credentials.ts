/** A portal login. Code types it; it never reaches the model, the store, a log or a screenshot. */
export interface Credentials {
  username: string;
  password: string;
}

/** Where logins come from: the encrypted vault in the product, lab accounts in the demo. */
export interface CredentialSource {
  get(clientId: string, portalId: string): Promise<Credentials | null>;
}

/** Saved login state (cookies and storage) for one client on one portal; a secret, encrypted at rest. */
export interface LoginStateStore {
  load(clientId: string, portalId: string): Promise<string | null>;
  save(clientId: string, portalId: string, storageStateJson: string): Promise<void>;
  remove(clientId: string, portalId: string): Promise<void>;
}
