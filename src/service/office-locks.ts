/**
 * The office database's advisory lock keys (two-key form: space, then key), in one place so that
 * no two kinds of lock can meet. pg-store.ts keeps its own (its client lock is space 29, its
 * migrations one key of their own).
 */

/** A case's client and portal, held by the desk running it: (19, hashtext(`clientId/portal`)), on the case's own connection. */
export const CLIENT_LOCK_SPACE = 19;

/** The office tables' schema changes: (18, 0) the queue's desk tables, (18, 1) the waits board. */
export const SCHEMA_LOCK_SPACE = 18;
