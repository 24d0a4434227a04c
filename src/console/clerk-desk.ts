import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../shared/clerk';

interface Parked<Q, A> {
  request: Q;
  resolve: (answer: A) => void;
}

/**
 * The clerk's side of every console run. A gated action or a question parks its run here until
 * the UI answers with `decide` or `answer`; other runs go on meanwhile. One desk serves all runs,
 * keyed by run id (a run asks one thing at a time).
 */
export class ClerkDesk implements ApprovalGate, InputSource {
  private readonly approvals = new Map<string, Parked<ApprovalRequest, ApprovalDecision>>();
  private readonly inputs = new Map<string, Parked<InputRequest, string | null>>();

  constructor(
    /** Who decides, as written into the step's approval record. */
    private readonly clerkName: string,
    /** Told whenever a run starts or stops waiting here. */
    private readonly changed: (runId: string) => void,
  ) {}

  request(req: ApprovalRequest): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      this.approvals.get(req.runId)?.resolve({ decision: 'deny', by: 'console', note: 'superseded by a newer approval request' });
      this.approvals.set(req.runId, { request: req, resolve });
      this.changed(req.runId);
    });
  }

  ask(req: InputRequest): Promise<string | null> {
    return new Promise((resolve) => {
      this.inputs.get(req.runId)?.resolve(null);
      this.inputs.set(req.runId, { request: req, resolve });
      this.changed(req.runId);
    });
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

  /** Forgets whatever the run still had parked (it ended): an approval is denied, a question declined. */
  release(runId: string): void {
    this.approvals.get(runId)?.resolve({ decision: 'deny', by: 'console', note: 'the run ended' });
    this.inputs.get(runId)?.resolve(null);
    this.approvals.delete(runId);
    this.inputs.delete(runId);
  }

  /** Releases every parked run: approvals denied, questions declined (the console is closing). */
  releaseAll(by: string): void {
    for (const [runId, parked] of [...this.approvals]) {
      this.approvals.delete(runId);
      parked.resolve({ decision: 'deny', by, note: 'the console closed before the clerk decided' });
    }
    for (const [runId, parked] of [...this.inputs]) {
      this.inputs.delete(runId);
      parked.resolve(null);
    }
  }
}
