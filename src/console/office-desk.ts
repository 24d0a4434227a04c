import { heldRequestLine, type ApprovalRequest, type ApprovalGate, type InputRequest, type InputSource, type TakeOverRequest } from '../shared/clerk';
import type { OfficeView, OfficeWaitView } from '../shared/console-api';
import { describeAction } from '../shared/describe-action';
import { OfficeQueue, OfficeWorker, type CaseExecutor } from '../service/office-queue';
import { officeDeskName, OfficeWaits, type OfficeWait } from '../service/office-waits';
import type { PgStore } from '../store';
import { errorText } from '../base/error-text';
import { PortalDeskError } from '../base/portal-desk-error';

/** What the office desk is refused: joining without an office database, an answer of the wrong kind. */
export class OfficeDeskError extends PortalDeskError {}

/** The office panel when no office database is configured. */
export const NO_OFFICE: OfficeView = { configured: false, joined: false, slots: 0, queued: 0, active: 0, waits: [] };

interface OfficeDeskOptions {
  /** PORTAL_DESK_DATABASE_URL. */
  url: string;
  /** The office store the console records in (the worker reads a case's latest run from it). */
  store: PgStore;
  /** Runs one case of the office queue in this console (a live run the clerk can watch). */
  execute: CaseExecutor;
  /** Told whenever what the panel shows changed. */
  changed: (view: OfficeView) => void;
  /** The console's environment (PORTAL_DESK_NAME names the desk). */
  env?: NodeJS.ProcessEnv;
  /** How often the open waits are read again (default 1.5 s). */
  pollMs?: number;
  log?: (line: string) => void;
}

/**
 * The console as a desk of the office (issue 19): it can join the office queue, taking cases as
 * `portal-desk worker` does (one client and portal at a time across all desks, heartbeats, a stale
 * desk's case resumed), and it shows the office's human waits (rows of office-waits.ts: approvals,
 * one-time codes, missing values of any desk's runs), which the clerk answers here; the first
 * answer wins, as with `portal-desk waits`. Its own queue runs wait on those rows too, so any
 * clerk of the office may answer them.
 */
export class OfficeDesk {
  private waits: Promise<OfficeWaits> | undefined;
  private queue: OfficeQueue | undefined;
  private worker: OfficeWorker | undefined;
  private working: Promise<void> | undefined;
  private slots = 0;
  private open: OfficeWait[] = [];
  private counts: Record<string, number> = {};
  private problem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = '';
  private closed = false;
  /** The planner this desk's office cases run with, as the clerk chose when joining. */
  private chosenPlanner: 'rules' | 'anthropic' = 'rules';

  constructor(private readonly o: OfficeDeskOptions) {}

  get planner(): 'rules' | 'anthropic' {
    return this.chosenPlanner;
  }

  /** Starts reading the office's waits (every pollMs) and telling the console when they change. */
  start(): void {
    if (this.timer || this.closed) return;
    const tick = async () => {
      await this.refresh();
      if (!this.closed) this.timer = setTimeout(() => void tick(), this.o.pollMs ?? 1500);
    };
    void tick();
  }

  view(): OfficeView {
    const deskId = this.worker?.deskId;
    return {
      configured: true,
      joined: !!this.worker,
      ...(deskId ? { deskId } : {}),
      slots: this.worker ? this.slots : 0,
      queued: (this.counts['created'] ?? 0) + (this.counts['retry'] ?? 0),
      active: this.counts['active'] ?? 0,
      waits: this.open.map((w) => waitView(w, deskId)),
      ...(this.problem ? { problem: this.problem } : {}),
    };
  }

  /** The approval gate and input source of one office run of this desk: rows any clerk of the office answers. */
  async gates(run: { clientId: string; portal: string; caseId: string }): Promise<{ approvals: ApprovalGate; inputs: InputSource }> {
    const waits = await this.board();
    // The desk as the worker names it, and the case: every desk's panel shows which client waits where.
    const desk = { id: this.worker?.deskId ?? 'console', name: officeDeskName(this.o.env), clientId: run.clientId, portal: run.portal, caseId: run.caseId };
    const approvals = waits.approvals(desk);
    const inputs = waits.inputs(desk);
    return {
      approvals: { request: (req) => this.showSoon(approvals.request(req)) },
      inputs: { ask: (req) => this.showSoon(inputs.ask(req)) },
    };
  }

  /** Joins the office queue with `slots` cases at once, their runs planned by `planner`, or leaves it (cases running finish first). */
  async join(join: boolean, slots: number, planner: 'rules' | 'anthropic'): Promise<OfficeView> {
    this.chosenPlanner = planner;
    if (!join) {
      this.worker?.stop();
      this.worker = undefined;
      await this.publish();
      return this.view();
    }
    if (this.worker) return this.view();
    await this.working;
    const log = this.o.log ?? (() => undefined);
    this.queue ??= await OfficeQueue.open(this.o.url, { supervise: true, log });
    const worker = new OfficeWorker({ queue: this.queue, store: this.o.store, url: this.o.url, execute: this.o.execute, slots, log });
    this.worker = worker;
    this.slots = slots;
    this.working = worker.run().catch((err: unknown) => {
      this.problem = `This desk left the office queue: ${errorText(err)}`;
      if (this.worker === worker) this.worker = undefined;
      void this.publish();
    });
    await this.publish();
    return this.view();
  }

  /** The clerk's answer to a wait: a decision for an approval, a value for a question; false when another clerk answered first. */
  async answer(id: string, answer: { decision?: 'approve' | 'deny'; value?: string | null; note?: string }, by: string): Promise<boolean> {
    const waits = await this.board();
    const wait = await waits.get(id);
    if (!wait) throw new OfficeDeskError(`No office wait ${id}`);
    let ok: boolean;
    if (wait.kind === 'approval') {
      if (!answer.decision) throw new OfficeDeskError(`Office wait ${id} is an approval: approve or deny it`);
      ok = await waits.decide(id, { decision: answer.decision, by, ...(answer.note ? { note: answer.note } : {}) });
    } else {
      if (answer.value === undefined) throw new OfficeDeskError(`Office wait ${id} asks for a value: type it`);
      ok = await waits.type(id, answer.value, by);
    }
    await this.refresh();
    return ok;
  }

  /** Takes no new case from the office queue (the console is closing); cases running finish or are handed back. */
  stopTaking(): void {
    this.worker?.stop();
  }

  /** Stops taking cases and reading waits; waits for the cases running here to end (the console has frozen them). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.worker?.stop();
    const waits = await this.waits?.catch(() => undefined);
    // Runs parked on a row wake and end (their console is closing); the worker then hands their jobs back.
    await waits?.close();
    await this.working;
    await this.queue?.close();
  }

  private board(): Promise<OfficeWaits> {
    this.waits ??= OfficeWaits.open(this.o.url).catch((err: unknown) => {
      this.waits = undefined;
      throw err;
    });
    return this.waits;
  }

  /** A new wait shows at once rather than at the next poll. */
  private showSoon<T>(answer: Promise<T>): Promise<T> {
    setTimeout(() => void this.refresh(), 150);
    return answer;
  }

  private async refresh(): Promise<void> {
    try {
      const waits = await this.board();
      this.open = await waits.open();
      this.counts = this.queue ? await this.queue.counts() : this.counts;
      this.problem = this.problem?.startsWith('This desk left') ? this.problem : undefined;
    } catch (err) {
      if (this.closed) return;
      this.problem = `Cannot read the office database: ${errorText(err).split('\n')[0]}`;
    }
    await this.publish();
  }

  private async publish(): Promise<void> {
    if (this.closed) return;
    const view = this.view();
    const text = JSON.stringify(view);
    if (text === this.lastSent) return;
    this.lastSent = text;
    this.o.changed(view);
  }
}

/** A wait as the panel shows it: what is asked in one line; a secret's row never carries a value. */
function waitView(w: OfficeWait, deskId: string | undefined): OfficeWaitView {
  const common = {
    id: w.id,
    runId: w.runId,
    step: w.step,
    ...(w.caseId ? { caseId: w.caseId } : {}),
    ...(w.clientId ? { clientId: w.clientId } : {}),
    deskId: w.deskId,
    deskName: w.deskName,
    thisDesk: w.deskId === deskId,
    secret: w.secret,
    createdAt: w.createdAt,
  };
  if (w.kind === 'take_over') {
    const p = w.prompt as Partial<TakeOverRequest>;
    const taken = w.takenBy ? ` (taken by ${w.takenBy})` : '';
    return { ...common, kind: 'take_over', question: `Take over at desk ${w.deskName}: the portal shows ${p.detail ?? 'a bot check'}${taken}` };
  }
  if (w.kind === 'approval') {
    const p = w.prompt as Partial<ApprovalRequest>;
    // The action the clerk is asked about (click button "Submit application"), then the request it sends.
    const action = p.action ? describeAction(p.action, p.element) : (p.element ?? 'an action');
    const what = p.request ? (p.action ? `${action} — ${heldRequestLine(p.request)}` : heldRequestLine(p.request)) : action;
    return { ...common, kind: 'approval', question: `Approve: ${what}`, ...(p.verdict?.reason ? { reason: p.verdict.reason } : {}) };
  }
  const p = w.prompt as Partial<InputRequest>;
  const kind = p.kind ?? 'missing_value';
  return { ...common, kind, question: p.question ?? 'A value the run needs' };
}
