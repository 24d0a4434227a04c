import { randomInt } from 'node:crypto';
import type { PortalId } from './hosts';

/** One-time codes "sent to the client's phone": issued, checked, expired after five minutes. */

export const OTP_TTL_MS = 5 * 60 * 1000;

export type OtpPurpose = 'signin' | 'submit';

export interface OtpMessage {
  clientId: string;
  portal: PortalId;
  purpose: OtpPurpose;
  code: string;
  sentAt: number;
  used: boolean;
}

export type OtpCheck = 'ok' | 'wrong' | 'expired' | 'none';

const MAX_MESSAGES = 200;

export class OtpDesk {
  private readonly sent: OtpMessage[] = [];

  constructor(private readonly now: () => number) {}

  send(clientId: string, portal: PortalId, purpose: OtpPurpose): OtpMessage {
    const message: OtpMessage = { clientId, portal, purpose, code: String(randomInt(0, 1_000_000)).padStart(6, '0'), sentAt: this.now(), used: false };
    this.sent.push(message);
    if (this.sent.length > MAX_MESSAGES) this.sent.shift();
    return message;
  }

  /** Checks a code against the latest one sent for this purpose; a right code is used up. */
  check(clientId: string, portal: PortalId, purpose: OtpPurpose, code: string): OtpCheck {
    const latest = [...this.sent].reverse().find((m) => m.clientId === clientId && m.portal === portal && m.purpose === purpose && !m.used);
    if (!latest) return 'none';
    if (this.now() - latest.sentAt > OTP_TTL_MS) return 'expired';
    if (code.trim() !== latest.code) return 'wrong';
    latest.used = true;
    return 'ok';
  }

  /** The latest code sent to the client, or null. */
  latest(clientId: string): string | null {
    return [...this.sent].reverse().find((m) => m.clientId === clientId)?.code ?? null;
  }

  /** Messages, newest first. */
  messages(clientId?: string): OtpMessage[] {
    return [...this.sent].reverse().filter((m) => clientId === undefined || m.clientId === clientId);
  }

  clear(): void {
    this.sent.length = 0;
  }
}
