import type { PortalId } from './hosts';
import type { Submission, SubmissionFilter, ApplicationSummary } from './submissions';
import type { AttackRecords } from './attacks/ledger';
import type { AttackerRequest, RequestLogEntry } from './traffic';
import type { LabVariant, LabVariantInput } from './variants';

/** A running portal lab: the handle tests, the CLI and the eval use. */
export interface Lab {
  readonly port: number;
  /** The address the server listens on (127.0.0.1 unless told otherwise). */
  readonly host: string;
  /** Chromium's `--host-resolver-rules` value that sends every hostname to the lab. */
  readonly hostResolverRules: string;
  /**
   * The https lab's certificate authority (PEM), made at lab start, which a run trusts only when
   * told (`launchChromium({ portalCa })`); null for the http lab.
   */
  readonly tlsCa: string | null;
  /** `https` for the https lab, else `http`. */
  readonly scheme: 'http' | 'https';
  /** Required in the `X-Lab-Token` header of control API calls. */
  readonly controlToken: string;
  /** `http://shops.portal.example:41234` (`https://` for the https lab) */
  origin(portal: PortalId): string;
  /** Origin of any hostname on the lab's port (the phone, the control API, attacker hosts). */
  originOf(hostname: string): string;
  /** Sets the client's variant for the next run (defaults fill what is left out). */
  configure(clientId: string, variant?: LabVariantInput): LabVariant;
  variant(clientId: string): LabVariant;
  /** Every submission, duplicates included, oldest first. */
  submissions(filter?: SubmissionFilter): Submission[];
  applications(clientId: string): ApplicationSummary[];
  /** How often the client clicked "Reset form". */
  resets(clientId: string): number;
  /** The latest one-time code sent to the client, or null. */
  latestOtp(clientId: string): string | null;
  /** The clerk solved the CAPTCHA by hand: the client may pass it until the next configure. */
  solveCaptcha(clientId: string): void;
  attackerRequests(): AttackerRequest[];
  /** A second port where every request counts as the attacker's ("the portal on another port"). */
  readonly attackerPort: number;
  /** What the attack pages' endpoints, the portals' form posts and the attacker hosts received. */
  attackRecords(): AttackRecords;
  requestLog(): RequestLogEntry[];
  /** Ends the client's sessions now: the next page asks to sign in again. */
  expireSession(clientId: string): void;
  /** Forgets every client, session, draft, submission, code and log entry. */
  reset(): void;
  stop(): Promise<void>;
}
