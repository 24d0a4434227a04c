/** Lab accounts: every client id is a username, with a deterministic password of its own. */

const USERNAME = /^[A-Za-z0-9._-]{1,80}$/;

export interface LabAccount {
  username: string;
  password: string;
}

/** The account of a client. The password is distinctive on purpose, so tests can scan logs for leaks. */
export function labAccount(clientId: string): LabAccount {
  if (!USERNAME.test(clientId)) throw new Error(`"${clientId}" is not a lab client id (letters, digits, dot, dash, underscore).`);
  return { username: clientId, password: `Lab!${clientId}-pw7` };
}

/** The client id the credentials sign in as, or null when they are wrong. */
export function checkCredentials(username: string, password: string): string | null {
  if (!USERNAME.test(username)) return null;
  return labAccount(username).password === password ? username : null;
}
