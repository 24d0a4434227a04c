import { randomBytes } from 'node:crypto';
import type { FieldValues } from './forms/spec';
import type { FieldError } from './forms/validate';
import type { PortalId } from './hosts';

/** Browser sessions (one cookie per portal host) and the unsaved application each one holds. */

export const SESSION_COOKIE = 'lab_session';

/** The application being filled in this session. Lost when the session ends unless saved as a draft. */
export interface WorkCopy {
  draftId: string | null;
  fields: FieldValues;
  sectionsDone: Set<string>;
}

/** A message for the next page (post/redirect/get). */
export interface Flash {
  errors?: FieldError[];
  notice?: string;
  /** Values to show again (the username after a failed sign-in). */
  values?: Record<string, string>;
}

export type SessionStage = 'anonymous' | 'awaiting-otp' | 'signed-in';

export interface Session {
  readonly id: string;
  readonly portal: PortalId;
  /** The client last signed in with this browser (kept after sign-out, to pick the variant). */
  clientId: string | null;
  stage: SessionStage;
  /** What the pending one-time code is for. */
  otpFor: 'signin' | 'submit' | null;
  work: WorkCopy | null;
  flash: Flash | null;
  /** Where to go after signing in. */
  next: string | null;
}

export class SessionBook {
  private readonly byId = new Map<string, Session>();

  find(id: string | undefined, portal: PortalId): Session | undefined {
    const session = id ? this.byId.get(id) : undefined;
    return session && session.portal === portal ? session : undefined;
  }

  create(portal: PortalId): Session {
    const session: Session = {
      id: randomBytes(18).toString('base64url'),
      portal,
      clientId: null,
      stage: 'anonymous',
      otpFor: null,
      work: null,
      flash: null,
      next: null,
    };
    this.byId.set(session.id, session);
    return session;
  }

  /** Ends every signed-in session of the client: unsaved work is lost, the next page asks to sign in again. */
  expireClient(clientId: string): number {
    let ended = 0;
    for (const session of this.byId.values()) {
      if (session.clientId !== clientId || session.stage === 'anonymous') continue;
      session.stage = 'anonymous';
      session.otpFor = null;
      session.work = null;
      session.flash = { notice: 'Your session has expired. Please sign in again.' };
      ended++;
    }
    return ended;
  }

  clear(): void {
    this.byId.clear();
  }
}
