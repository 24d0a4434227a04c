import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, HeldRequest, InputRequest, InputSource } from '../shared/clerk';
import { heldRequestLine, SECRET_INPUT_KINDS } from '../shared/clerk';
import type { ApproveMode } from '../shared/run';
import { promptLine } from './terminal-prompt';

const run = promisify(execFile);

/** Names the run a question comes from ("case X, client Y") when several runs share the terminal. */
type RunName = (runId: string) => string | undefined;

/** " (case X)" after a prompt's first words, when the run has a name. */
function whose(name: RunName | undefined, runId: string): string {
  const named = name?.(runId);
  return named ? ` (${named})` : '';
}

/** The line `run` and `batch` print when approvals are automatic. */
export function autoApprovalWarning(mode: ApproveMode): string | null {
  return mode === 'ask' ? null : `!! --approve ${mode}: gated actions are ${mode === 'all' ? 'APPROVED' : 'DENIED'} automatically. Demo and test use only.`;
}

/** The values a held request carries, one a line, those not from the case marked. */
export function carriedLines(request: Pick<HeldRequest, 'values'>): string {
  if (request.values.length === 0) return '';
  const lines = request.values.slice(0, 30).map((v) => `\n    ${v.origin === 'not_from_case' ? '!! NOT FROM THE CASE' : v.origin === 'clerk' ? 'clerk answer' : `case ${v.field ?? ''}`.trim()}: ${v.name} = ${v.value.slice(0, 120)}`);
  return `${lines.join('')}${request.values.length > 30 ? `\n    … and ${request.values.length - 30} more` : ''}`;
}

/** Approvals on the terminal (`ask`), or automatic for demos and tests (`all`, `none`), said loudly. */
export class TerminalApprovals implements ApprovalGate {
  constructor(
    private readonly mode: ApproveMode,
    private readonly log: (line: string) => void,
    private readonly name?: RunName,
  ) {}

  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    const what = req.request
      ? `send ${heldRequestLine(req.request)} (sent by ${req.request.cause})${carriedLines(req.request)}`
      : `${`${req.action?.type ?? 'act'} ${req.element ?? ''}`.trim()}${req.sends ? ` (sends ${heldRequestLine(req.sends)})${carriedLines(req.sends)}` : ''}`;
    const run = whose(this.name, req.runId);
    if (this.mode === 'all') {
      this.log(`  APPROVED AUTOMATICALLY (--approve all, demo/test mode)${run}: ${what} — ${req.verdict.reason}`);
      return { decision: 'approve', by: 'auto:all' };
    }
    if (this.mode === 'none') {
      this.log(`  DENIED AUTOMATICALLY (--approve none, demo/test mode)${run}: ${what} — ${req.verdict.reason}`);
      return { decision: 'deny', by: 'auto:none' };
    }
    const by = req.expiresAt ? `\n  answer by ${req.expiresAt.slice(11, 19)} UTC (then the run stops, resumable, and nothing is sent)` : '';
    const answer = await promptLine(`\nApproval needed${run}: ${what}\n  why: ${req.verdict.reason}${by}\n  Approve? [y/N] `);
    if (answer === null) {
      this.log(`  no terminal to ask for approval${run}: denied`);
      return { decision: 'deny', by: 'terminal:none' };
    }
    const clerk = process.env.USER ?? 'clerk';
    return /^y(es)?$/i.test(answer.trim()) ? { decision: 'approve', by: clerk } : { decision: 'deny', by: clerk };
  }
}

/** How long `--otp-command` may take: as long as a code stays valid on the lab portals (5 minutes). */
const OTP_COMMAND_TIMEOUT_MS = 300_000;

/**
 * The clerk's answers: on the terminal (codes without echo), or from `--otp-command` for tests
 * (run with PORTAL_DESK_RUN_ID set to the asking run's id).
 */
export class TerminalInputs implements InputSource {
  constructor(
    private readonly otpCommand: string | undefined,
    private readonly answers: Record<string, string>,
    private readonly name?: RunName,
  ) {}

  async ask(req: InputRequest): Promise<string | null> {
    if (req.kind === 'otp' && this.otpCommand) {
      const env = { ...process.env, PORTAL_DESK_RUN_ID: req.runId };
      const { stdout } = await run('/bin/sh', ['-c', this.otpCommand], { timeout: OTP_COMMAND_TIMEOUT_MS, env });
      const code = stdout.trim();
      return code.length > 0 ? code : null;
    }
    if (req.field && this.answers[req.field] !== undefined) return this.answers[req.field]!;
    return promptLine(`\n${req.question}${whose(this.name, req.runId)}\n> `, { secret: SECRET_INPUT_KINDS.includes(req.kind) });
  }
}
