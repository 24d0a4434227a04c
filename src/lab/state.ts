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
  port = 0;

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
  }
}
