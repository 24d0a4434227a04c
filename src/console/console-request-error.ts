import { PortalDeskError } from '../base/portal-desk-error';

/**
 * A request the console refuses: unknown method, bad parameters, a run that cannot start. The
 * message is for the clerk. Its own file because every part of the console service throws it.
 */
export class ConsoleRequestError extends PortalDeskError {}
