import { PortalDeskError } from '../base/portal-desk-error';
import { heldRequestLine, RESEND_CODE, type ApprovalDecision, type ApprovalGate, type ApprovalRequest, type InputRequest, type InputSource, type TakeOverDesk, type TakeOverEnd, type TakeOverRequest } from '../shared/clerk';
import { ClerkGestures } from '../shared/clerk-gestures';
import type { CarriedValue, ControlSubmission } from '../shared/control-submission';
import type { TakeOverView } from '../shared/console-api';

interface Parked<Q, A> {
  request: Q;
  resolve: (answer: A) => void;
  reject: (err: Error) => void;
}

/** What a parked run is told when the console closes before the clerk answered: nothing was answered for them. */
class ConsoleClosedError extends PortalDeskError {
  constructor() {
    super('The console closed before the clerk answered; the run is left to resume');
  }
}

/**
 * The clerk's side of every console run. A gated action or a question parks its run here until
 * the UI answers with `decide` or `answer`; other runs go on meanwhile. One desk serves all runs,
 * keyed by run id (a run asks one thing at a time).
 */
export class ClerkDesk implements ApprovalGate, InputSource, TakeOverDesk {
  private readonly approvals = new Map<string, Parked<ApprovalRequest, ApprovalDecision>>();
  private readonly inputs = new Map<string, Parked<InputRequest, string | null>>();
  /** Runs parked for a take-over (offered by a bot check, or active: the clerk has the portal), and who to tell when the clerk takes it. */
  private readonly takeOvers = new Map<string, Parked<TakeOverView, TakeOverEnd> & { taken?: (() => void) | undefined }>();
  /** Runs the clerk asked to take over, not yet parked (the loop is between reads): when, at which step. */
  private readonly asked = new Map<string, { at: string; step: number }>();
  /** What the clerk's clicks and keys aimed at, per run they hold (a commit request is theirs only through one). */
  private readonly gestures = new Map<string, ClerkGestures>();

  constructor(
    /** Who decides, as written into the step's approval record. */
    private readonly clerkName: string,
    /** Told whenever a run starts or stops waiting here. */
    private readonly changed: (runId: string) => void,
  ) {}

  request(req: ApprovalRequest): Promise<ApprovalDecision> {
    return new Promise((resolve, reject) => {
      this.approvals.get(req.runId)?.resolve({ decision: 'deny', by: 'console', note: 'superseded by a newer approval request' });
      this.approvals.set(req.runId, { request: req, resolve, reject });
      this.changed(req.runId);
    });
  }

  ask(req: InputRequest): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.inputs.get(req.runId)?.resolve(null);
      this.inputs.set(req.runId, { request: req, resolve, reject });
      this.changed(req.runId);
    });
  }

  takeOver(req: TakeOverRequest, taken?: () => void): Promise<TakeOverEnd> {
    return new Promise((resolve, reject) => {
      const asked = this.asked.get(req.runId);
      this.asked.delete(req.runId);
      this.takeOvers.get(req.runId)?.resolve({ handedBack: false, by: 'console', note: 'superseded by a newer take-over' });
      // A take-over the clerk asked for is theirs at once; a bot check waits for them to take it.
      const active = !!asked || req.reason === 'clerk';
      const view: TakeOverView = { ...req, state: active ? 'active' : 'offered', ...(active ? { takenAt: asked?.at ?? new Date().toISOString() } : {}) };
      this.takeOvers.set(req.runId, { request: view, resolve, reject, taken });
      if (active) taken?.();
      this.changed(req.runId);
    });
  }

  wantsTakeOver(runId: string): boolean {
    return this.asked.has(runId);
  }

  /**
   * The clerk clicks Take over: a run waiting for it is theirs at once; a live run hands its portal
   * over before its next read (`live`: the run is running in this console). False when neither.
   */
  startTakeOver(runId: string, live: { step: number } | null): boolean {
    const parked = this.takeOvers.get(runId);
    if (parked) {
      if (parked.request.state !== 'active') {
        parked.request = { ...parked.request, state: 'active', takenAt: new Date().toISOString() };
        parked.taken?.();
        this.changed(runId);
      }
      return true;
    }
    if (!live) return false;
    if (!this.asked.has(runId)) {
      this.asked.set(runId, { at: new Date().toISOString(), step: live.step });
      this.changed(runId);
    }
    return true;
  }

  /** The clerk hands the portal back (the run goes on) or declines it; false when the run holds no take-over. */
  handBack(runId: string, decision: 'hand_back' | 'decline', note?: string): boolean {
    const parked = this.takeOvers.get(runId);
    if (!parked) {
      // Asked but not yet handed over: asking again is cancelled.
      if (!this.asked.delete(runId)) return false;
      this.changed(runId);
      return true;
    }
    this.takeOvers.delete(runId);
    this.gestures.delete(runId);
    const { takenAt } = parked.request;
    parked.resolve({ handedBack: decision === 'hand_back', by: this.clerkName, ...(note ? { note } : {}), ...(takenAt ? { takenAt } : {}) });
    this.changed(runId);
    return true;
  }

  /** The clerk has the run's portal now: their input goes to the page. */
  isTakenOver(runId: string): boolean {
    return this.takeOvers.get(runId)?.request.state === 'active';
  }

  /** A click or key of the clerk's in the run's portal, with what its target sends; ignored unless they hold it. */
  noteGesture(runId: string, controls: readonly ControlSubmission[]): void {
    if (!this.isTakenOver(runId)) return;
    let gestures = this.gestures.get(runId);
    if (!gestures) this.gestures.set(runId, (gestures = new ClerkGestures()));
    gestures.note(controls);
  }

  claimByHand(runId: string, url: string, carried: readonly CarriedValue[]): string | null {
    return this.isTakenOver(runId) && this.gestures.get(runId)?.claim(url, carried) ? this.clerkName : null;
  }

  pendingTakeOver(runId: string): TakeOverView | null {
    const parked = this.takeOvers.get(runId);
    if (parked) return parked.request;
    const asked = this.asked.get(runId);
    if (!asked) return null;
    return { runId, step: asked.step, reason: 'clerk', detail: 'You asked to take over: the agent finishes what it is doing and hands you the portal', state: 'asked', takenAt: asked.at };
  }

  pendingApproval(runId: string): ApprovalRequest | null {
    return this.approvals.get(runId)?.request ?? null;
  }

  pendingInput(runId: string): InputRequest | null {
    return this.inputs.get(runId)?.request ?? null;
  }

  /** The clerk's decision on the run's pending approval; false when nothing is pending (already answered, or the run moved on). */
  decide(runId: string, decision: 'approve' | 'deny', note?: string): boolean {
    const parked = this.approvals.get(runId);
    if (!parked) return false;
    this.approvals.delete(runId);
    parked.resolve({ decision, by: this.clerkName, ...(note ? { note } : {}) });
    this.changed(runId);
    return true;
  }

  /** The clerk's answer to the run's pending question (null declines); false when nothing is pending. */
  answer(runId: string, value: string | null): boolean {
    const parked = this.inputs.get(runId);
    if (!parked) return false;
    this.inputs.delete(runId);
    parked.resolve(value);
    this.changed(runId);
    return true;
  }

  /** The clerk asks the portal for a new one-time code, where the pending code question offers it; false otherwise. */
  resendCode(runId: string): boolean {
    return this.pendingInput(runId)?.canResend === true && this.answer(runId, RESEND_CODE);
  }

  /** What the run waits for here, in one line (a queue's entry shows it); null when nothing, or when the clerk only asked to take over. */
  waitLine(runId: string): string | null {
    const approval = this.pendingApproval(runId);
    if (approval) return `Approve or deny: ${approval.request ? heldRequestLine(approval.request) : (approval.element ?? approval.action?.type ?? 'an action')}`;
    const input = this.pendingInput(runId);
    if (input) return input.kind === 'otp' ? 'Type the one-time code the client received' : input.question;
    const takeOver = this.pendingTakeOver(runId);
    if (takeOver && takeOver.state !== 'asked') return takeOver.state === 'active' ? 'You have the portal: hand it back when you are done' : `Take over: the portal shows ${takeOver.detail}`;
    return null;
  }

  /** Forgets whatever the run still had parked (it ended): an approval is denied, a question declined. */
  release(runId: string): void {
    this.approvals.get(runId)?.resolve({ decision: 'deny', by: 'console', note: 'the run ended' });
    this.inputs.get(runId)?.resolve(null);
    this.takeOvers.get(runId)?.resolve({ handedBack: false, by: 'console', note: 'the run ended' });
    this.approvals.delete(runId);
    this.inputs.delete(runId);
    this.takeOvers.delete(runId);
    this.gestures.delete(runId);
    this.asked.delete(runId);
  }

  /**
   * The console is closing: nothing is approved, denied or declined on the clerk's behalf. Each
   * parked run's question fails with ConsoleClosedError (its loop unwinds; the service has frozen
   * its records and keeps it `interrupted`, resumable). Answers the ids of the runs that waited.
   */
  abandonAll(): string[] {
    const runIds = new Set([...this.approvals.keys(), ...this.inputs.keys(), ...this.takeOvers.keys()]);
    for (const parked of [...this.approvals.values(), ...this.inputs.values(), ...this.takeOvers.values()]) parked.reject(new ConsoleClosedError());
    this.approvals.clear();
    this.inputs.clear();
    this.takeOvers.clear();
    this.gestures.clear();
    this.asked.clear();
    return [...runIds];
  }
}
