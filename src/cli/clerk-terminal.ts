import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, HeldRequest, InputRequest, InputSource } from '../shared/clerk';
import { cardValues, heldAddress, heldRequestLine, reviewDifferences, SECRET_INPUT_KINDS } from '../shared/clerk';
import type { ApproveMode } from '../shared/run';
import { promptLine } from './terminal-prompt';
import { showInvisible } from '../shared/visible-text';

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

/** The values a held request carries, one a line and whole, those not from the case marked; then review rows that differ from the case. */
export function carriedLines(request: Pick<HeldRequest, 'values'> & Partial<Pick<HeldRequest, 'review' | 'bodySha256'>>): string {
  const lines = cardValues(request).map((v) => `\n    ${v.notFromCase ? '!! NOT FROM THE CASE' : v.source}: ${v.name} = ${v.value}${v.invisible > 0 ? `  (!! ${v.invisible} invisible or direction-changing character${v.invisible === 1 ? '' : 's'}, shown as ⟦…⟧)` : ''}`);
  const differences = reviewDifferences(request).map((line) => `\n    !! REVIEW PAGE DIFFERS FROM THE CASE: ${line}`);
  const body = request.bodySha256 ? `\n    body sha256 ${request.bodySha256}` : '';
  return `${lines.join('')}${differences.join('')}${body}`;
}

/** The clerk's typed answer: y sends once, s/l (where offered) also teach the map a save or look-up, anything else denies. */
function terminalDecision(answer: string, learnable: boolean, clerk: string): ApprovalDecision {
  const a = answer.trim().toLowerCase();
  if (/^y(es)?$/.test(a)) return { decision: 'approve', by: clerk };
  if (learnable && /^s(ave)?$/.test(a)) return { decision: 'approve', by: clerk, remember: 'save' };
  if (learnable && /^l(ook-?up)?$/.test(a)) return { decision: 'approve', by: clerk, remember: 'lookup' };
  return { decision: 'deny', by: clerk };
}

/** Approvals on the terminal (`ask`), or automatic for demos and tests (`all`, `none`), said loudly. */
export class TerminalApprovals implements ApprovalGate {
  constructor(
    private readonly mode: ApproveMode,
    private readonly log: (line: string) => void,
    private readonly name?: RunName,
  ) {}

  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    // Everything the page wrote (the button's name, the cause, values) with its hidden characters shown.
    const what = showInvisible(req.request
      ? `${req.action ? `${`${req.action.type} ${req.element ?? ''}`.trim()}, which sends ` : 'send '}${heldAddress(req.request)} (sent by ${req.request.cause})${carriedLines(req.request)}`
      : `${`${req.action?.type ?? 'act'} ${req.element ?? ''}`.trim()}${req.sends ? ` (sends ${heldRequestLine(req.sends)})${carriedLines(req.sends)}` : ''}`);
    const run = whose(this.name, req.runId);
    if (this.mode === 'all') {
      this.log(`  APPROVED AUTOMATICALLY (--approve all, demo/test mode)${run}: ${what} — ${req.verdict.reason}`);
      return { decision: 'approve', by: 'auto:all' };
    }
    if (this.mode === 'none') {
      this.log(`  DENIED AUTOMATICALLY (--approve none, demo/test mode)${run}: ${what} — ${req.verdict.reason}`);
      return { decision: 'deny', by: 'auto:none' };
    }
    // A held request that is not a submission may be taught to the portal's request map.
    const learnable = req.request !== undefined && req.request.rule !== 'submit-path' && req.request.rule !== 'payment-path';
    const choices = learnable ? `\n  [y] send once   [s] a section save of this portal: don't ask again   [l] a look-up of this portal: don't ask again   [N] deny\n  Answer? ` : '\n  Approve? [y/N] ';
    const by = req.expiresAt ? `\n  answer by ${req.expiresAt.slice(11, 19)} UTC (then the run stops, resumable, and nothing is sent)` : '';
    const answer = await promptLine(`\nApproval needed${run}: ${what}\n  why: ${req.verdict.reason}${by}${choices}`);
    if (answer === null) {
      this.log(`  no terminal to ask for approval${run}: denied`);
      return { decision: 'deny', by: 'terminal:none' };
    }
    return terminalDecision(answer, learnable, process.env.USER ?? 'clerk');
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
