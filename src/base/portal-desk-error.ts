/**
 * The base of Portal Desk's own errors (Playwright's `server/errors.ts` habit): `name` is the
 * class's own name, set here once, so `SchemaTooNewError: …` reads the same in a log, a stack and
 * a test without each class naming itself. Messages say what happened, what was kept, and what the
 * person can do next.
 */
export class PortalDeskError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
