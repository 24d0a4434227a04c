import { AttackLedger } from './attacks/ledger';
import { ClientBook } from './clients';
import { OtpDesk } from './otp';
import { SessionBook } from './session';
import { SubmissionBook } from './submissions';
import { TrafficLog } from './traffic';

/** Everything one running lab holds. `reset()` forgets it all (application numbers are never reused). */
export class LabState {
  readonly clients = new ClientBook();
  readonly sessions = new SessionBook();
  readonly submissions = new SubmissionBook();
  readonly otp: OtpDesk;
  readonly traffic = new TrafficLog();
  /** What landed from the attack pages (see `attacks/`). */
  readonly attacks = new AttackLedger();
  port = 0;
  /** `https` when the lab serves over TLS (`startLab({ tls: true })`). */
  scheme: 'http' | 'https' = 'http';
  /** The lab's second port, where everything counts as the attacker ("the portal on another port"). */
  attackerPort = 0;

  constructor(
    readonly now: () => number,
    readonly controlToken: string,
  ) {
    this.otp = new OtpDesk(now);
  }

  reset(): void {
    this.clients.clear();
    this.sessions.clear();
    this.submissions.clear();
    this.otp.clear();
    this.traffic.clear();
    this.attacks.clear();
  }
}
